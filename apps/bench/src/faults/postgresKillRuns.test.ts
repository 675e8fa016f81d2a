import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, lastJsonLine, postgresServer, runKillable } from '@roundtable/test-utils';
import type { PostgresServer, TestDatabase } from '@roundtable/test-utils';
import { FULL, countKill, faultCounts, reportFaults } from './faultReport.js';
import { killOnSteps } from './killOnSteps.js';

// SIGKILL a process running a team on PostgreSQL at random points; a fresh process recovers
// until the run completes. The result and the saved messages must equal an uninterrupted
// run's: nothing lost, nothing doubled. Each kill lands on a random one of the first MAX_STEP
// durable writes its process reports (killOnSteps.ts), not on a clock, so the kill count is
// reached the same way on a loaded machine as on a quiet one. (Moved here from
// @roundtable/storage-postgres's suite: a team flow across the scheduler, graph and the adapter.)

const WORKER = fileURLToPath(new URL('../__fixtures__/faultWorker.mjs', import.meta.url));
const KILLS = FULL ? 200 : 16;
const TURNS = 8;
// A run of TURNS turns takes 20 steps uninterrupted (18 appends, the run's end, the room files),
// and each recovery adds a few of its own (a reconcile, a resume): about 10 kills per run.
const MAX_STEP = 10;

interface Outcome {
  readonly result: unknown;
  readonly messages: readonly { id: string; text: string; sender: string; roomId: string; mentions: string[] }[];
}

// Attempts of one batch finish in any order, so messages are compared as a set keyed by id.
const byId = (messages: Outcome['messages']) => [...messages].sort((a, b) => a.id.localeCompare(b.id));

let server: PostgresServer;
let database: TestDatabase;
let scratch: string;
let reference: Outcome;
beforeAll(async () => {
  server = await postgresServer();
  database = await createTestDatabase(server.url, 'team_kill');
  scratch = await mkdtemp(join(tmpdir(), 'roundtable-postgres-faults-'));
  reference = lastJsonLine<Outcome>((await runKillable(WORKER, ['memory', '', join(scratch, 'reference-rooms'), String(TURNS), 'reference'])).stdout);
});
afterAll(async () => {
  await database.drop();
  await server.stop();
  await rm(scratch, { recursive: true, force: true });
  reportFaults('postgres kills');
});

it(`a team run on PostgreSQL recovers to the uninterrupted result and messages after ${KILLS} SIGKILLs`, async () => {
  const { kills, runs, killedRuns } = await killOnSteps({
    kills: KILLS,
    maxStep: MAX_STEP,
    attempt: (run, kill) => runKillable(WORKER, ['postgres', database.url, join(scratch, `run-${run}-rooms`), String(TURNS), `run-${run}`], kill),
    onKill: () => countKill('postgres'),
    finished: (_run, stdout) => {
      const finished = lastJsonLine<Outcome>(stdout);
      expect(finished.result).toEqual(reference.result);
      expect(byId(finished.messages)).toEqual(byId(reference.messages));
      faultCounts.recoveredRuns++;
    },
  });
  expect(kills).toBeGreaterThanOrEqual(KILLS);
  expect(killedRuns).toBeGreaterThan(0);
  expect(reference.messages.length).toBeGreaterThan(TURNS);
  expect(runs).toBeGreaterThan(0);
  console.log(`[faults] kills on postgres: ${kills} SIGKILLs over ${runs} runs, every run recovered to the uninterrupted result`);
  // Only a guard against a hung worker: killOnSteps bounds the processes. The bounded form takes
  // about 25 s on a quiet machine and 80 s with two cores shared by a dozen busy processes.
}, FULL ? 1_800_000 : 600_000);
