import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { TestDatabase } from '@roundtable/test-utils';
import { createPostgresStorage } from '../src/index.js';
import { FULL, assertFreshBuild, exited, forkFixture, nextMessage, readAll, testDatabase } from './helpers.js';

type RaceResult = { type: 'result'; eventId: string; head?: number; code?: string };

const isType =
  <T extends { type: string }>(type: T['type']) =>
  (message: unknown): message is T =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

const ROUNDS = FULL ? 1000 : 200;
const FREE_FOR_ALL = FULL ? 300 : 100;

let database: TestDatabase;
const children: ChildProcess[] = [];
beforeAll(async () => {
  assertFreshBuild();
  database = await testDatabase('race');
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => database.drop());

describe('two processes on one database', () => {
  it(`race ${ROUNDS} rounds on one expected revision: exactly one wins each, nothing lost or duplicated`, async () => {
    const names = ['alpha', 'beta'] as const;
    const workers = names.map((name) => forkFixture('raceWorker.mjs', [database.url, name]));
    children.push(...workers);
    await Promise.all(workers.map((worker) => nextMessage(worker, isType('ready'))));

    const winners: string[] = [];
    const wins = { alpha: 0, beta: 0 };
    let roundsWithOneWinner = 0;
    let roundsWithOneConflict = 0;
    for (let round = 0; round < ROUNDS; round++) {
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
    expect(roundsWithOneWinner).toBe(ROUNDS);
    expect(roundsWithOneConflict).toBe(ROUNDS);
    // Both really raced: each won a share of the rounds.
    expect(wins.alpha).toBeGreaterThan(0);
    expect(wins.beta).toBeGreaterThan(0);

    // Then both append as fast as they can, retrying conflicts.
    const done = workers.map((worker) => nextMessage(worker, isType<{ type: 'done'; conflicts: number }>('done')));
    for (const worker of workers) worker.send({ type: 'free-for-all', streamId: 'free', count: FREE_FOR_ALL });
    await Promise.all(done);
    for (const worker of workers) worker.send({ type: 'close' });
    await Promise.all(workers.map((worker) => exited(worker)));

    const storage = createPostgresStorage({ connectionString: database.url });
    try {
      const race = await readAll(storage, 'race');
      expect(race.map((event) => event.eventId)).toEqual(winners);
      const free = await readAll(storage, 'free');
      expect(free.map((event) => event.revision)).toEqual(Array.from({ length: 2 * FREE_FOR_ALL }, (_, i) => i + 1));
      const expectedIds = names.flatMap((name) => Array.from({ length: FREE_FOR_ALL }, (_, i) => `${name}-free-${i}`));
      expect(new Set(free.map((event) => event.eventId))).toEqual(new Set(expectedIds));
    } finally {
      await storage.close();
    }
  });
});
