import { copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, isRoundtableError } from '@roundtable/core';
import type { RunStorage, StoredEvent } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import { createSqliteStorage } from '@roundtable/storage-sqlite';
import { asNew, completedRecord } from './faultRecord.js';
import { FULL, countFuzzCase, faultCounts, reportFaults } from './faultReport.js';
import { FAULT_RUN_ID } from './faultTeam.js';

// Damaged record files, on both durable adapters: every case must fail closed with a typed
// error or read back whole (exactly the events written, or for a removed last batch a whole
// prefix of them) — never a TypeError, a hang, or events that differ from what was written.
// Each case damages a copy of one template record made once, so a case costs a read, not a
// run and its fsyncs.

const RUNS = { fs: FULL ? 8_000 : 40, sqlite: FULL ? 5_000 : 30 };

let scratch: string;
let record: StoredEvent[];
const codes = new Map<string, number>();
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-fuzz-files-'));
  record = await completedRecord();
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  console.log(`[faults] file damage outcomes: ${JSON.stringify(Object.fromEntries(codes))}`);
  reportFaults('file fuzz');
});

async function readAll(storage: RunStorage): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of storage.read(FAULT_RUN_ID)) events.push(event);
  return events;
}

/** Writes the record one event per append, as the executor does, and closes the instance. */
async function writeRecord(storage: RunStorage): Promise<void> {
  let head = 0;
  for (const event of record) head = await storage.append(FAULT_RUN_ID, head, [asNew(event)]);
  await storage.close();
}

/**
 * Opens and reads a damaged record. Returns the typed error, or null when it read back whole:
 * exactly the record, or (when `prefixOk`) a whole prefix of it.
 */
async function openAndRead(open: () => RunStorage, prefixOk: boolean): Promise<unknown> {
  let storage: RunStorage | undefined;
  try {
    storage = open();
    const events = await readAll(storage);
    const expected = record.slice(0, events.length);
    expect(events.map((event) => canonicalJson(event)), 'a damaged record read back different events').toEqual(expected.map((event) => canonicalJson(event)));
    if (!prefixOk) expect(events.length, 'a damaged record read back fewer events').toBe(record.length);
    expect(await storage.head(FAULT_RUN_ID)).toBe(events.length);
    codes.set('read back whole', (codes.get('read back whole') ?? 0) + 1);
    return null;
  } catch (error) {
    if (!isRoundtableError(error)) throw new Error(`untyped failure: ${String(error)}`, { cause: error });
    codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
    return error;
  } finally {
    await storage?.close().catch(() => undefined);
  }
}

function damageBytes(bytes: Buffer, how: 'flip' | 'truncate' | 'extend' | 'zero-run', at: number, mask: number): Buffer {
  const offset = at % Math.max(1, bytes.length);
  if (how === 'truncate') return bytes.subarray(0, offset);
  if (how === 'extend') return Buffer.concat([bytes, Buffer.from([mask])]);
  const copy = Buffer.from(bytes);
  if (how === 'flip') copy[offset] = copy[offset]! ^ mask;
  else copy.fill(0, offset, Math.min(copy.length, offset + 1 + mask * 16));
  return copy;
}

/**
 * Gives `path` new bytes in a new inode (a temp file renamed over it). Writing into the file
 * would also change every other name of its inode: the head marker is a hard link of the
 * newest batch, so damaging or restoring one would silently damage the other (run6 of issue
 * 32: a swap of the head marker with an older batch, restored by writes, left the newest batch
 * holding the older one's bytes, and a later case failed on a record it had not damaged).
 */
function replaceFile(path: string, bytes: Uint8Array): void {
  const temp = `${path}.fuzz-tmp`;
  writeFileSync(temp, bytes, { mode: 0o600 });
  renameSync(temp, path);
}

const byteDamage = fc.constantFrom('flip', 'truncate', 'extend', 'zero-run' as const);

describe('damaged record files', () => {
  it('fs: a flipped, cut, extended, zeroed, removed, renamed or foreign file fails closed with CORRUPT_EVENT_STREAM, or reads back whole', async () => {
    const directory = join(scratch, 'fs');
    await writeRecord(createFsStorage({ directory }));
    const streamFolder = join(directory, 'default', FAULT_RUN_ID);
    const files = readdirSync(streamFolder).sort();
    const originals = new Map(files.map((name) => [name, readFileSync(join(streamFolder, name))]));
    const last = files.at(-1)!;
    // Puts back the files a case touched (and removes any it added), so the next case starts
    // from the whole record again without rewriting every file.
    const restore = (touched: readonly string[]) => {
      for (const name of readdirSync(streamFolder)) if (!originals.has(name)) unlinkSync(join(streamFolder, name));
      for (const name of touched) replaceFile(join(streamFolder, name), originals.get(name)!);
    };
    const how = fc.oneof(byteDamage, fc.constantFrom('remove', 'foreign-file', 'copy-as-next', 'rename-over-gap', 'swap-two' as const));
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), how, async (fileAt, byteAt, mask, damage) => {
        const name = files[fileAt % files.length]!;
        const path = join(streamFolder, name);
        const other = files[(fileAt + 1 + (byteAt % (files.length - 1))) % files.length]!;
        if (damage === 'remove') unlinkSync(path);
        else if (damage === 'foreign-file') writeFileSync(join(streamFolder, byteAt % 2 === 0 ? 'notes.txt' : '0000000000009999.batch'), 'not a batch');
        else if (damage === 'copy-as-next') copyFileSync(path, join(streamFolder, `${String(record.length + 1).padStart(16, '0')}.batch`));
        else if (damage === 'rename-over-gap') renameSync(path, join(streamFolder, `${String(record.length + 5).padStart(16, '0')}.batch`));
        else if (damage === 'swap-two') {
          renameSync(path, join(streamFolder, 'swap'));
          renameSync(join(streamFolder, other), path);
          renameSync(join(streamFolder, 'swap'), join(streamFolder, other));
        } else replaceFile(path, damageBytes(originals.get(name)!, damage, byteAt, mask));
        faultCounts.damagedFiles++;
        try {
          // The last name in the folder is the head marker (`head`, a copy of the newest batch):
          // removing it leaves every batch in place, so the record reads back whole. Removing
          // the newest batch file is caught by the marker, like any other removal.
          // Swapping two files with the same bytes (the newest batch and its head marker) changes
          // nothing, so the record must read back whole.
          const lastRemoved = (damage === 'remove' || damage === 'rename-over-gap') && name === last;
          const unchanged = damage === 'swap-two' && originals.get(name)!.equals(originals.get(other)!);
          // Read-only: a writable instance may pack batch files into a segment in the background
          // when it opens, changing the folder under the next case (which restores only the files
          // this case touched) at a moment that depends on the machine's speed.
          const error = await openAndRead(() => createFsStorage({ directory, readOnly: true }), lastRemoved && damage === 'remove');
          if ((lastRemoved && damage === 'remove') || unchanged) expect(error).toBeNull();
          else {
            expect(error, `${damage} of ${name} must be detected`).not.toBeNull();
            expect((error as { code: string }).code).toBe('CORRUPT_EVENT_STREAM');
          }
          countFuzzCase('files');
          if (error === null) faultCounts.accepted++;
          else faultCounts.typedErrors++;
        } finally {
          restore(damage === 'swap-two' ? [name, other] : [name]);
        }
      }),
      { numRuns: RUNS.fs },
    );
  });

  it('sqlite: a flipped, cut, extended or zeroed database file fails closed with a typed error, or reads back whole', async () => {
    const template = join(scratch, 'template.sqlite');
    await writeRecord(createSqliteStorage({ filename: template }));
    const original = readFileSync(template);
    let caseNumber = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.integer({ min: 1, max: 255 }), byteDamage, async (byteAt, mask, damage) => {
        const filename = join(scratch, `case-${caseNumber++}.sqlite`);
        const damaged = damageBytes(original, damage, byteAt, mask);
        writeFileSync(filename, damaged, { mode: 0o600 });
        faultCounts.damagedFiles++;
        try {
          // An empty file is what the adapter creates before SQLite writes its first page (a
          // crash can leave it): a database with no streams, so it reads back as an empty prefix.
          const error = await openAndRead(() => createSqliteStorage({ filename, busyTimeoutMs: 1000 }), damaged.length === 0);
          countFuzzCase('files');
          if (error === null) faultCounts.accepted++;
          else faultCounts.typedErrors++;
        } finally {
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${filename}${suffix}`, { force: true });
        }
      }),
      { numRuns: RUNS.sqlite },
    );
  });
});
