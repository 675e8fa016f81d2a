import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { inject } from 'vitest';
import type { NewEvent, RunStorage, StoredEvent } from '@roundtable/storage';
import { FULL, POSTGRES_URL_KEY, assertFreshBuild as assertBuild, createTestDatabase, exited, forkFixture as forkPackageFixture, nextMessage, rejection } from '@roundtable/test-utils';
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

const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** Child-process fixtures import the built package; refuse to test a missing or stale build. */
export const assertFreshBuild = (): void => assertBuild(packageRoot, 'storage-postgres');

/** Forks a fixture from test/ with an IPC channel. */
export const forkFixture = (name: string, args: string[]): ChildProcess => forkPackageFixture(packageRoot, name, args);

export { FULL, exited, nextMessage, rejection };
