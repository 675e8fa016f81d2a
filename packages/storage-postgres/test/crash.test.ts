import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { RunStorage } from '@roundtable/storage';
import type { TestDatabase } from '@roundtable/test-utils';
import { createPostgresStorage } from '../src/index.js';
import { FULL, assertFreshBuild, exited, forkFixture, nextMessage, readAll, testDatabase } from './helpers.js';

interface BatchPayload {
  readonly batch: string;
  readonly index: number;
  readonly size: number;
}

const KILLS = FULL ? 1_000 : 24;
const STREAMS = ['crash-a', 'crash-b', 'crash-c', 'crash-shared'];

let database: TestDatabase;
const children: ChildProcess[] = [];
beforeAll(async () => {
  assertFreshBuild();
  database = await testDatabase('crash');
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => database.drop());

/** Reads each stream from where the last check stopped (a batch boundary) and checks it holds whole batches only, each once. */
async function checkWholeBatches(storage: RunStorage, checkedUpTo: Map<string, number>, seen: Map<string, string>): Promise<void> {
  for (const streamId of STREAMS) {
    const events = await readAll(storage, streamId, checkedUpTo.get(streamId) ?? 0);
    for (let i = 0; i < events.length; ) {
      const { batch, size } = events[i]!.payload as unknown as BatchPayload;
      expect(seen.has(batch), `batch ${batch} appears twice`).toBe(false);
      seen.set(batch, streamId);
      const parts = events.slice(i, i + size).map((event) => event.payload as unknown as BatchPayload);
      expect(parts.map((part) => `${part.batch}#${part.index}`), `batch ${batch} is torn`).toEqual(Array.from({ length: size }, (_, index) => `${batch}#${index}`));
      i += size;
    }
    const last = events.at(-1);
    if (last) checkedUpTo.set(streamId, last.revision);
  }
}

it(`SIGKILL of client processes mid-append (${KILLS} kills): every batch whole or absent, nothing acknowledged lost, appending continues`, async () => {
  const acknowledged = new Map<string, string>();
  const seen = new Map<string, string>();
  const checkedUpTo = new Map<string, number>();
  const storage = createPostgresStorage({ connectionString: database.url });
  let started = 0;
  let kills = 0;
  let checking = Promise.resolve();

  async function checkAfterKill(round: number): Promise<void> {
    const mustBeThere = [...acknowledged];
    await checkWholeBatches(storage, checkedUpTo, seen);
    for (const [batch, streamId] of mustBeThere) expect(seen.get(batch), `acknowledged batch ${batch} was lost`).toBe(streamId);
    const streamId = STREAMS[round % STREAMS.length]!;
    const batch = `check-${round}`;
    const event = { eventId: batch, type: 'test:crash', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: 'check', causationId: null, payload: { batch, index: 0, size: 1 } };
    for (;;) {
      const head = await storage.head(streamId);
      try {
        expect(await storage.append(streamId, head, [event])).toBe(head + 1);
        return;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'REVISION_CONFLICT') throw error;
      }
    }
  }

  // Three writers at a time, each killed 2–30 ms after it is ready and replaced; each has a
  // stream of its own and shares one, so kills land in the middle of contended appends too.
  async function writerSlot(slot: number): Promise<void> {
    while (started < KILLS) {
      const round = started++;
      const worker = forkFixture('crashWorker.mjs', [database.url, `w${round}`, `${STREAMS[slot]},crash-shared`]);
      children.push(worker);
      worker.on('message', (message: { type: string; batch: string; streamId: string }) => {
        if (message.type === 'committed') acknowledged.set(message.batch, message.streamId);
      });
      await nextMessage(worker, (message): message is { type: 'ready' } => (message as { type?: unknown }).type === 'ready');
      await sleep(2 + Math.random() * 28);
      worker.kill('SIGKILL');
      // Only a kill may end a writer: an error would exit with a code instead.
      expect(await exited(worker)).toEqual({ code: null, signal: 'SIGKILL' });
      kills++;
      const check = checking.then(() => checkAfterKill(round));
      checking = check.catch(() => undefined);
      await check;
    }
  }

  try {
    await Promise.all([0, 1, 2].map(writerSlot));
    expect(kills).toBe(KILLS);
    expect(acknowledged.size).toBeGreaterThan(0);
    // A last full read of every stream from the start, by a fresh instance.
    const fresh = createPostgresStorage({ connectionString: database.url });
    const everything = new Map<string, string>();
    await checkWholeBatches(fresh, new Map(), everything);
    await fresh.close();
    await checkWholeBatches(storage, checkedUpTo, seen);
    expect(everything).toEqual(seen);
  } finally {
    await storage.close();
  }
}, FULL ? 1_800_000 : 120_000);
