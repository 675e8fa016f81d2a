import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestDatabase } from '@roundtable/test-utils';
import { FULL, assertFreshBuild, testDatabase } from './helpers.js';

// SIGKILL a process running a team on PostgreSQL at random points; a fresh process recovers
// until the run completes. The result and the saved messages must equal an uninterrupted
// run's: nothing lost, nothing doubled.

const WORKER = fileURLToPath(new URL('./teamWorker.mjs', import.meta.url));
const KILLS = FULL ? 200 : 16;
const TURNS = 8;

interface Outcome {
  readonly result: unknown;
  readonly messages: readonly { id: string; text: string; sender: string; roomId: string; mentions: string[] }[];
}

function worker(args: string[], killAfterMs?: number): Promise<{ stdout: string; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let armed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killAfterMs !== undefined && !armed && stdout.startsWith('ready\n')) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ stdout, killed: true });
      else if (code === 0) resolve({ stdout, killed: false });
      else reject(new Error(`team worker exited ${code}: ${stderr}`));
    });
  });
}

const outcome = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Outcome;
// Attempts of one batch finish in any order, so messages are compared as a set keyed by id.
const byId = (messages: Outcome['messages']) => [...messages].sort((a, b) => a.id.localeCompare(b.id));

let database: TestDatabase;
let reference: Outcome;
beforeAll(async () => {
  assertFreshBuild();
  database = await testDatabase('team_kill');
  reference = outcome((await worker(['memory', 'reference', String(TURNS)])).stdout);
});
afterAll(() => database.drop());

it(`a team run on PostgreSQL recovers to the uninterrupted result and messages after ${KILLS} SIGKILLs`, async () => {
  let kills = 0;
  let runs = 0;
  let killedRuns = 0;
  for (let run = 0; kills < KILLS; run++) {
    const runId = `run-${run}`;
    let killedThisRun = false;
    for (;;) {
      const exit = await worker([database.url, runId, String(TURNS)], Math.floor(Math.random() * 500));
      if (exit.killed) {
        kills++;
        killedThisRun = true;
        continue;
      }
      const finished = outcome(exit.stdout);
      expect(finished.result).toEqual(reference.result);
      expect(byId(finished.messages)).toEqual(byId(reference.messages));
      break;
    }
    runs++;
    if (killedThisRun) killedRuns++;
  }
  expect(kills).toBeGreaterThanOrEqual(KILLS);
  expect(killedRuns).toBeGreaterThan(0);
  expect(reference.messages.length).toBeGreaterThan(TURNS);
  expect(runs).toBeGreaterThan(0);
}, FULL ? 1_800_000 : 120_000);
