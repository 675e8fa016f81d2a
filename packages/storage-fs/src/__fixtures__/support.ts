import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isStorageError } from '@roundtable/storage';
import type { NewEvent, StorageError, StorageErrorCode } from '@roundtable/storage';
import { newEvent as sharedNewEvent } from '@roundtable/test-utils';

/** A valid new event; the payload defaults to something small. */
export function newEvent(eventId: string, payload: NewEvent['payload'] = { eventId }): NewEvent {
  return sharedNewEvent(eventId, payload, { correlationId: 'run' });
}

export function newEvents(prefix: string, count: number): NewEvent[] {
  return Array.from({ length: count }, (_, index) => newEvent(`${prefix}-${index}`));
}

const created: string[] = [];

/** A fresh real directory under the OS temp dir; `removeTempDirectories` deletes them all. */
export function tempDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'roundtable-fs-'));
  created.push(directory);
  return directory;
}

export function removeTempDirectories(): void {
  for (const directory of created.splice(0)) rmSync(directory, { recursive: true, force: true });
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** The storage error `action` rejects with; fails the test if it resolves or throws anything else. */
export async function storageError(action: () => Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  if (caught === undefined) throw new Error(`Expected ${code}, but the call succeeded.`);
  if (!isStorageError(caught, code)) throw new Error(`Expected ${code}, got ${caught instanceof Error ? caught.message : typeof caught}`, { cause: caught });
  return caught;
}

export function permissions(path: string): number {
  return statSync(path).mode & 0o777;
}

export function listFiles(path: string): string[] {
  return readdirSync(path).sort();
}

/**
 * The built package, which child processes import (they cannot load TypeScript). Fails with a
 * clear message when it is missing or older than the source, instead of testing stale code.
 */
export function builtEntry(): string {
  const entry = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
  const sourceDirectory = fileURLToPath(new URL('..', import.meta.url));
  if (!existsSync(entry)) throw new Error(`Build @roundtable/storage-fs first (npx tsup): ${entry} is missing.`);
  const builtAt = statSync(entry).mtimeMs;
  for (const name of readdirSync(sourceDirectory)) {
    if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
    if (statSync(join(sourceDirectory, name)).mtimeMs > builtAt) throw new Error(`Rebuild @roundtable/storage-fs (npx tsup): src/${name} is newer than dist.`);
  }
  return entry;
}

/**
 * How a stream folder holds its batches: batch files not packed yet, segment files and the
 * batches packed into them (from each segment's header), batch files left behind already packed
 * (by a killed packer), and anything else.
 */
export function folderLayout(folder: string): { batchFiles: number; segments: number; packedBatches: number; leftovers: number; marker: boolean; other: string[] } {
  const names = readdirSync(folder);
  const ranges = names
    .filter((name) => name.endsWith('.segment'))
    .map((name) => {
      const header = readFileSync(join(folder, name), 'latin1').split('\n', 1)[0]!;
      const [, first, last, batches] = /first=(\d+) last=(\d+) batches=(\d+)/.exec(header)!;
      return { first: Number(first), last: Number(last), batches: Number(batches) };
    });
  const packedEnd = Math.max(0, ...ranges.map((range) => range.last));
  const batchNames = names.filter((name) => /^\d{16}\.batch$/.test(name));
  return {
    batchFiles: batchNames.filter((name) => Number(name.slice(0, 16)) > packedEnd).length,
    segments: ranges.length,
    packedBatches: ranges.reduce((sum, range) => sum + range.batches, 0),
    leftovers: batchNames.filter((name) => Number(name.slice(0, 16)) <= packedEnd).length,
    marker: names.includes('head'),
    other: names.filter((name) => !name.endsWith('.segment') && !batchNames.includes(name) && name !== 'head'),
  };
}
