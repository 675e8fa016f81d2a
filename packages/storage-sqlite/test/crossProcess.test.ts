import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { createSqliteStorage } from '../src/index.js';
import { assertFreshBuild, exited, forkFixture, nextMessage, readAll, tempDirectory } from './helpers.js';

// 1,000 rounds in the long form (FAULT_SCALE=full, `pnpm test:faults`), 200 by default.
const ROUNDS = process.env.FAULT_SCALE === 'full' ? 1000 : 200;

type RaceResult = { type: 'result'; eventId: string; head?: number; code?: string };

const isType =
  <T extends { type: string }>(type: T['type']) =>
  (message: unknown): message is T =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

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

function fork(name: string, args: string[]): ChildProcess {
  const child = forkFixture(name, args);
  children.push(child);
  return child;
}

describe('several processes on one file', () => {
  it(`two processes racing ${ROUNDS} rounds on one expected revision: exactly one wins each, nothing lost or duplicated`, async () => {
    const filename = join(directory, 'runs.db');
    const names = ['alpha', 'beta'] as const;
    const workers = names.map((name) => fork('raceWorker.mjs', [filename, name]));
    await Promise.all(workers.map((worker) => nextMessage(worker, isType('ready'))));

    const rounds = ROUNDS;
    const winners: string[] = [];
    const wins = { alpha: 0, beta: 0 };
    let roundsWithOneWinner = 0;
    let roundsWithOneConflict = 0;
    for (let round = 0; round < rounds; round++) {
      // Alternate who is told first, so neither has a head start every round.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const replies = order.map((i) => nextMessage(workers[i]!, isType<RaceResult>('result')));
      for (const i of order) workers[i]!.send({ type: 'append', streamId: 'race', expectedRevision: round, eventId: `${names[i]}-${round}` });
      const results = await Promise.all(replies);
      const won = results.filter((result) => result.head !== undefined);
      if (won.length === 1 && won[0]!.head === round + 1) roundsWithOneWinner++;
      if (results.filter((result) => result.code === 'REVISION_CONFLICT').length === 1) roundsWithOneConflict++;
      const winner = won[0]?.eventId ?? 'none';
      winners.push(winner);
      if (winner.startsWith('alpha')) wins.alpha++;
      else if (winner.startsWith('beta')) wins.beta++;
    }
    expect(roundsWithOneWinner).toBe(rounds);
    expect(roundsWithOneConflict).toBe(rounds);
    // Both really raced: each won a share of the rounds.
    expect(wins.alpha).toBeGreaterThan(0);
    expect(wins.beta).toBeGreaterThan(0);

    // Then both append 300 events each as fast as they can, retrying conflicts.
    const done = workers.map((worker) => nextMessage(worker, isType<{ type: 'done'; conflicts: number }>('done')));
    for (const worker of workers) worker.send({ type: 'free-for-all', streamId: 'free', count: 300 });
    await Promise.all(done);
    for (const worker of workers) worker.send({ type: 'close' });
    await Promise.all(workers.map((worker) => exited(worker)));

    const storage = createSqliteStorage({ filename });
    const race = await readAll(storage, 'race');
    expect(race.map((event) => event.eventId)).toEqual(winners);
    const free = await readAll(storage, 'free');
    expect(free.map((event) => event.revision)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    const expectedIds = names.flatMap((name) => Array.from({ length: 300 }, (_, i) => `${name}-free-${i}`));
    expect(new Set(free.map((event) => event.eventId))).toEqual(new Set(expectedIds));
    await storage.close();
  }, ROUNDS * 600);

  it('two processes opening a fresh file at the same moment both work, and it is migrated once', async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const filename = join(directory, `fresh-${attempt}.db`);
      const workers = ['one', 'two'].map((name) => fork('openWorker.mjs', [filename, name]));
      await Promise.all(workers.map((worker) => nextMessage(worker, isType('booted'))));
      const outcomes = workers.map((worker) => nextMessage(worker, (message): message is { type: string; head?: number; message?: string } => typeof message === 'object' && message !== null));
      const startAt = Date.now() + 50;
      for (const worker of workers) worker.send({ startAt });
      expect(await Promise.all(outcomes)).toEqual([
        { type: 'opened', head: 1 },
        { type: 'opened', head: 1 },
      ]);
      await Promise.all(workers.map((worker) => exited(worker)));
      const db = new Database(filename, { readonly: true });
      expect(db.prepare('SELECT version FROM roundtable_migrations').pluck().all()).toEqual([1]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare('SELECT stream_id, head FROM streams ORDER BY stream_id').all()).toEqual([
        { stream_id: 'one', head: 1 },
        { stream_id: 'two', head: 1 },
      ]);
      db.close();
    }
  }, 120_000);
});
