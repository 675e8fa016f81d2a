import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { inject } from 'vitest';
import type { NewEvent, RunStorage, StoredEvent } from '@roundtable/storage';
import { POSTGRES_URL_KEY, createTestDatabase } from '@roundtable/test-utils';
import type { TestDatabase } from '@roundtable/test-utils';

declare module 'vitest' {
  export interface ProvidedContext {
    [POSTGRES_URL_KEY]: string;
  }
}

/** The test server's URL (from the global setup). */
export function serverUrl(): string {
  return inject(POSTGRES_URL_KEY);
}

/** A database of this test file's own. */
export function testDatabase(prefix = 'storage_pg'): Promise<TestDatabase> {
  return createTestDatabase(serverUrl(), prefix);
}

/** A plain pg client for looking at (and damaging) the tables directly. */
export async function rawClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

export function newEvent(eventId: string, payload: NewEvent['payload'] = { eventId }): NewEvent {
  return { eventId, type: 'test:event', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: 'test', causationId: null, payload };
}

export function newBatch(prefix: string, count: number): NewEvent[] {
  return Array.from({ length: count }, (_, i) => newEvent(`${prefix}-${i + 1}`));
}

export async function readAll(storage: RunStorage, streamId: string, after?: number): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of storage.read(streamId, after === undefined ? {} : { after })) events.push(event);
  return events;
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** FAULT_SCALE=full runs the long form of the race and kill tests; the default is a bounded one. */
export const FULL = process.env.FAULT_SCALE === 'full';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** Child-process fixtures import the built package; refuse to test a missing or stale build. */
export function assertFreshBuild(): void {
  const built = join(packageRoot, 'dist', 'index.js');
  if (!existsSync(built)) throw new Error('dist/index.js is missing: run `pnpm turbo run build --filter=@roundtable/storage-postgres` first.');
  const builtAt = statSync(built).mtimeMs;
  const sources = readdirSync(join(packageRoot, 'src')).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
  const stale = sources.filter((name) => statSync(join(packageRoot, 'src', name)).mtimeMs > builtAt);
  if (stale.length > 0) throw new Error(`dist is older than src (${stale.join(', ')}): build packages/storage-postgres first.`);
}

/** Forks a fixture from test/ with an IPC channel. */
export function forkFixture(name: string, args: string[]): ChildProcess {
  return fork(join(packageRoot, 'test', name), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Resolves with the next IPC message from `child` that `accept` takes. */
export function nextMessage<T>(child: ChildProcess, accept: (message: unknown) => message is T): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (!accept(message)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null, signal: string | null) => {
      child.off('message', onMessage);
      reject(new Error(`fixture exited (code ${code}, signal ${signal}) before sending the expected message`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}
