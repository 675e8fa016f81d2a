import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { messageOfType as isType } from '@roundtable/test-utils';
import { createRunClient } from '../src/index.js';
import { workersTeamGraph } from './__fixtures__/team.mjs';
import { attemptCounts, childProcessDatabase, exited, forkFixture, isAttempt, letAttemptGo, nextMessage, referenceRun, savedMessages } from './__fixtures__/helpers.js';

// The workers are gated (see workerProcess.mjs) until each of them has started an attempt: the
// test holds every attempt until then, so no worker can run all the work before a slower one
// (on a loaded machine, one descheduled for a while) claims any, and "the work was spread over
// all of them" holds on any machine. From then on every attempt goes on at once.

const TURNS = 3;
const RUNS = 50;
const WORKERS = 3;

const { children, database } = childProcessDatabase('workers_multi');

it(`${WORKERS} worker processes run ${RUNS} team runs to the single-process output, every position started exactly once`, async () => {
  const reference = await referenceRun(TURNS);
  const attemptsBy = new Map<string, string[]>();
  const held: (() => void)[] = [];
  const workers = Array.from({ length: WORKERS }, (_, i) => {
    const child = forkFixture('workerProcess.mjs', [database().url, `w${i}`, JSON.stringify({ turns: TURNS, waitMs: 20, concurrency: 4, gated: true })]);
    child.on('message', (message: unknown) => {
      if (!isAttempt(message)) return;
      attemptsBy.set(message.workerId, [...(attemptsBy.get(message.workerId) ?? []), message.position]);
      held.push(() => letAttemptGo(child, message.attempt));
      if (attemptsBy.size === WORKERS) for (const go of held.splice(0)) go();
    });
    children.push(child);
    return child;
  });
  await Promise.all(workers.map((worker) => nextMessage(worker, isType('ready'))));

  const client = await createRunClient({ connectionString: database().url });
  const graph = workersTeamGraph(TURNS);
  const runIds = Array.from({ length: RUNS }, (_, i) => `multi-${i}`);
  try {
    for (const runId of runIds) await client.submitRun({ runId, graph });
    const pending = new Set(runIds);
    while (pending.size > 0) {
      for (const runId of [...pending]) {
        const status = await client.runStatus({ runId });
        if (status.kind === 'waiting') continue;
        expect(status, runId).toEqual(reference.result);
        pending.delete(runId);
      }
      if (pending.size > 0) await sleep(100);
    }
  } finally {
    await client.close();
  }

  const closed = workers.map((worker) => nextMessage(worker, isType<{ type: 'closed'; stats: { outcomesRecorded: number; attemptsStarted: number; errors: number; refused: number } }>('closed')));
  for (const worker of workers) worker.send({ type: 'close' });
  const stats = (await Promise.all(closed)).map((message) => message.stats);
  await Promise.all(workers.map((worker) => exited(worker)));

  const storage = createPostgresStorage({ connectionString: database().url });
  try {
    let positions = 0;
    for (const runId of runIds) {
      expect(await savedMessages(storage, runId, TURNS), runId).toEqual(reference.messages);
      for (const [position, counts] of await attemptCounts(storage, runId)) {
        expect(counts, `${runId} ${position}`).toMatchObject({ starts: 1, outcomes: 1 });
        positions++;
      }
    }
    // Every attempt was started by exactly one worker, and the work was spread over all of them.
    const allAttempts = [...attemptsBy.values()].flat();
    expect(allAttempts).toHaveLength(positions);
    expect(stats.reduce((sum, s) => sum + s.attemptsStarted, 0)).toBe(positions);
    expect(stats.reduce((sum, s) => sum + s.outcomesRecorded, 0)).toBe(positions);
    expect(stats.map((s) => s.errors)).toEqual([0, 0, 0]);
    expect(stats.every((s) => s.attemptsStarted > 0)).toBe(true);
  } finally {
    await storage.close();
  }
});
