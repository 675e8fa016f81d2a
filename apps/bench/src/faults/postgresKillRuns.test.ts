import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, killAndRecover, lastJsonLine, postgresServer, runKillable } from '@roundtable/test-utils';
import type { PostgresServer, TestDatabase } from '@roundtable/test-utils';
import { FULL, countKill, faultCounts, reportFaults } from './faultReport.js';

// SIGKILL a process running a team on PostgreSQL at random points; a fresh process recovers
// until the run completes. The result and the saved messages must equal an uninterrupted
// run's: nothing lost, nothing doubled. (Moved here from @roundtable/storage-postgres's suite:
// a team flow across the scheduler, graph and the adapter.)

const WORKER = fileURLToPath(new URL('../__fixtures__/faultWorker.mjs', import.meta.url));
const KILLS = FULL ? 200 : 16;
const TURNS = 8;

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
  const { kills, runs, killedRuns } = await killAndRecover({
    kills: KILLS,
    attempt: (run) => runKillable(WORKER, ['postgres', database.url, join(scratch, `run-${run}-rooms`), String(TURNS), `run-${run}`], { killAfterReadyMs: Math.floor(Math.random() * 500) }),
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
}, FULL ? 1_800_000 : 120_000);
