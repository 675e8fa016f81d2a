import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresServer, readAll } from '@roundtable/test-utils';
import type { PostgresServer, TestDatabase } from '@roundtable/test-utils';
import { openFaultStorage } from './faultStorage.js';
import { FULL, faultCounts, reportFaults } from './faultReport.js';

// Two processes answer one pause at the same moment (issue 22, SPEC 20): each has folded the
// paused run, both are told to answer at once, and the answer is an append at the expected
// revision that is written only while the position is still paused. Every round: exactly one
// answer is recorded, exactly one attempt runs (counted by the member's side file, not by the
// record), and the other process gets STALE_ANSWER, having written nothing. Both processes hold
// their store open across rounds, so each round is only the race. 1,000 rounds per adapter in
// the long form (FAULT_SCALE=full, `pnpm test:faults`).

const ROUNDS = FULL ? 1000 : 12;
const WORKER = fileURLToPath(new URL('../__fixtures__/answerWorker.mjs', import.meta.url));
const POSITION = 'team/asker/1';

interface Reply {
  readonly step: string;
  readonly outcome: string;
}

/** An answer worker and a way to ask it one step at a time. */
function startWorker(kind: string, path: string, name: string, sides: string) {
  const child: ChildProcess = fork(WORKER, [kind, path, name, sides], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: Reply[] = [];
  const waiting: ((reply: Reply) => void)[] = [];
  child.on('message', (reply: Reply) => {
    const resolve = waiting.shift();
    if (resolve) resolve(reply);
    else inbox.push(reply);
  });
  const failed = new Promise<never>((_, reject) => child.on('exit', (code, signal) => reject(new Error(`answer worker ${name} exited (${code ?? signal})`))));
  failed.catch(() => undefined);
  const next = (): Promise<Reply> => (inbox.length > 0 ? Promise.resolve(inbox.shift()!) : Promise.race([new Promise<Reply>((resolve) => waiting.push(resolve)), failed]));
  const ask = (step: string, runId: string): Promise<Reply> => {
    child.send({ step, runId });
    return next();
  };
  return { name, child, next, ask };
}

let scratch: string;
let server: PostgresServer;
let database: TestDatabase;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'roundtable-answers-'));
  server = await postgresServer();
  database = await createTestDatabase(server.url, 'racing_answers');
});
afterAll(async () => {
  await database.drop();
  await server.stop();
  await rm(scratch, { recursive: true, force: true });
  reportFaults('racing answers');
});

describe.each([
  ['fs', () => join(scratch, 'record')],
  ['sqlite', () => join(scratch, 'record.sqlite')],
  ['postgres', () => database.url],
])('racing answers on %s', (kind, location) => {
  it(`write exactly one answer and run one attempt per pause over ${ROUNDS} rounds; the loser writes nothing`, async () => {
    const sides = await mkdtemp(join(scratch, `${kind}-sides-`));
    const workers = [startWorker(kind, location(), 'left', sides), startWorker(kind, location(), 'right', sides)];
    const reader = await openFaultStorage(kind, location());
    const wins = { left: 0, right: 0 };
    try {
      await Promise.all(workers.map((worker) => worker.next()));
      for (let round = 0; round < ROUNDS; round++) {
        const runId = `answer-${round}`;
        expect(await workers[round % 2]!.ask('pause', runId)).toEqual({ step: 'pause', outcome: 'pause' });
        // Both fold the paused run first; then both are told to answer, alternating who hears first.
        expect(await Promise.all(workers.map((worker) => worker.ask('open', runId)))).toEqual([
          { step: 'open', outcome: 'open' },
          { step: 'open', outcome: 'open' },
        ]);
        const order = round % 2 === 0 ? workers : [...workers].reverse();
        const replies = await Promise.all(order.map((worker) => worker.ask('answer', runId)));
        const outcomes = replies.map((reply) => reply.outcome).sort();
        expect(outcomes, `round ${round}`).toEqual(['STALE_ANSWER', 'complete']);
        const winner = order[replies.findIndex((reply) => reply.outcome === 'complete')]!.name as keyof typeof wins;
        wins[winner]++;
        // One attempt ran, the winner's, with its own answer.
        expect(await readFile(join(sides, runId), 'utf8')).toBe(`${winner} "${winner}"\n`);
        const events = await readAll(reader, runId);
        expect(events.map((event) => event.type.replace('graph:', ''))).toEqual([
          'run-started',
          'node-dispatched',
          'node-attempt-started',
          'node-paused',
          'node-resumed',
          'node-attempt-started',
          'node-completed',
        ]);
        expect(events[4]!.payload).toEqual({ nodeId: 'asker', position: POSITION, value: winner });
        faultCounts.typedErrors++;
        faultCounts.recoveredRuns++;
      }
    } finally {
      for (const worker of workers) worker.child.disconnect();
      await reader.close();
    }
    console.info(`racing answers on ${kind}: ${ROUNDS} rounds, wins ${JSON.stringify(wins)}`);
  }, FULL ? 3_600_000 : 300_000);
});
