import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { RunStorage } from '@roundtable/storage';
import { createSqliteStorage } from '../src/index.js';
import { assertFreshBuild, exited, forkFixture, nextMessage, readAll, tempDirectory } from './helpers.js';

interface BatchPayload {
  readonly batch: string;
  readonly index: number;
  readonly size: number;
}

let directory: string;
let cleanup: () => void;
let children: ChildProcess[];

beforeAll(() => assertFreshBuild());
beforeEach(() => {
  ({ directory, cleanup } = tempDirectory());
  children = [];
});
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  cleanup();
});

const STREAMS = ['crash-a', 'crash-b', 'crash-c', 'crash-shared'];

/**
 * Reads each stream from where the last check stopped (always a batch boundary) and checks it
 * holds whole batches only, each once. Returns the batches seen.
 */
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

/** Runs `work` after every earlier call's work has finished. */
function serialized(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };
}

// FAULT_SCALE=full (`pnpm test:faults`) runs the long form: 1,000 kills over 10 database files
// (fast NORMAL-mode writers fill a file quickly; a file per 100 kills keeps each one's reads and
// its disk use small); 40 kills on one file by default.
const FULL = process.env.FAULT_SCALE === 'full';
const FILES = FULL ? 10 : 1;
const KILLS_PER_FILE = FULL ? 100 : 40;
const KILLS = FILES * KILLS_PER_FILE;

/** Fails (once, with the first miss) unless every acknowledged batch was seen in its stream. */
function expectAllSeen(acknowledged: Iterable<[string, string]>, seen: Map<string, string>, what: string): void {
  for (const [batch, streamId] of acknowledged) {
    if (seen.get(batch) !== streamId) expect.fail(`${what}: batch ${batch} of ${streamId} is ${seen.has(batch) ? `in ${seen.get(batch)}` : 'missing'}`);
  }
}

/**
 * Three writers at a time on one file, each killed 5–40 ms after it is ready and replaced,
 * until `kills` kills; after each, a fresh instance checks what is new. Then a full read of
 * every stream by a fresh instance. Returns the number of acknowledged batches.
 */
async function killWritersOn(filename: string, kills: number, firstRound: number): Promise<number> {
  const acknowledged = new Map<string, string>();
  // Acknowledged since the last check: a batch, once seen, stays seen (reads only grow).
  let unchecked: [string, string][] = [];
  const seen = new Map<string, string>();
  const checkedUpTo = new Map<string, number>();
  const oneCheckAtATime = serialized();
  let started = 0;
  let killed = 0;

  // After a kill, a fresh instance checks every stream (while the other writers keep going) and appends.
  async function checkAfterKill(round: number): Promise<void> {
    const mustBeThere = unchecked;
    unchecked = [];
    const storage = createSqliteStorage({ filename });
    try {
      await checkWholeBatches(storage, checkedUpTo, seen);
      expectAllSeen(mustBeThere, seen, 'an acknowledged batch was lost');
      const streamId = STREAMS[round % STREAMS.length]!;
      const batch = `check-${round}`;
      const event = { eventId: batch, type: 'test:crash', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: 'check', causationId: null, payload: { batch, index: 0, size: 1 } };
      for (;;) {
        const head = await storage.head(streamId);
        try {
          expect(await storage.append(streamId, head, [event])).toBe(head + 1);
          break;
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'REVISION_CONFLICT') throw error;
        }
      }
    } finally {
      await storage.close();
    }
  }

  // Each writer has a stream of its own and shares one; every other writer uses synchronous
  // NORMAL (a process crash loses nothing in either mode: only a power loss can cost NORMAL its
  // last commits).
  async function writerSlot(slot: number): Promise<void> {
    while (started < kills) {
      const round = firstRound + started++;
      const worker = forkFixture('crashWorker.mjs', [filename, `w${round}`, `${STREAMS[slot]},crash-shared`, round % 2 === 0 ? 'full' : 'normal']);
      children.push(worker);
      worker.on('message', (message: { type: string; batch: string; streamId: string }) => {
        if (message.type !== 'committed') return;
        acknowledged.set(message.batch, message.streamId);
        unchecked.push([message.batch, message.streamId]);
      });
      await nextMessage(worker, (message): message is { type: 'ready' } => (message as { type?: unknown }).type === 'ready');
      await sleep(5 + Math.random() * 35);
      worker.kill('SIGKILL');
      // Only a kill may end a writer: an error would exit with a code instead.
      expect(await exited(worker)).toEqual({ code: null, signal: 'SIGKILL' });
      killed++;
      await oneCheckAtATime(() => checkAfterKill(round));
    }
  }

  await Promise.all([0, 1, 2].map(writerSlot));
  expect(killed).toBe(kills);

  // A last full read of every stream, from the start, by a fresh instance: the same batches.
  const storage = createSqliteStorage({ filename });
  await checkWholeBatches(storage, checkedUpTo, seen);
  const everything = new Map<string, string>();
  await checkWholeBatches(storage, new Map(), everything);
  expect(everything.size).toBe(seen.size);
  expectAllSeen(seen, everything, 'the full read differs from the incremental ones');
  expectAllSeen(acknowledged, everything, 'an acknowledged batch is missing from the full read');
  await storage.close();
  return acknowledged.size;
}

it(`survives ${KILLS} SIGKILLs at random moments mid-append: every batch whole, nothing acknowledged lost, appending continues`, async () => {
  let acknowledged = 0;
  for (let file = 0; file < FILES; file++) {
    const filename = join(directory, `runs-${file}.db`);
    acknowledged += await killWritersOn(filename, KILLS_PER_FILE, file * KILLS_PER_FILE);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${filename}${suffix}`, { force: true });
  }
  // The writers got real work done between kills (how much depends on the machine's load).
  expect(acknowledged).toBeGreaterThan(0);
}, KILLS * 1_800);
