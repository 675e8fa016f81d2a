import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { messageOfType as isType } from '@roundtable/test-utils';
import type { TestDatabase } from '@roundtable/test-utils';
import { createRunClient } from '../src/index.js';
import { workersTeamGraph } from './__fixtures__/team.mjs';
import { FULL, assertFreshBuild, attemptCounts, exited, forkFixture, isAttempt, letAttemptGo, nextMessage, referenceRun, savedMessages, testDatabase } from './__fixtures__/helpers.js';

// SIGKILL worker processes in the middle of attempts, again and again, while runs go on. Once a
// dead worker's lease expires another worker recovers its attempt: re-run (retrySafe members)
// or the reconcile pause (cy is not retrySafe), which the test answers with resumeRun. Every
// run must reach the uninterrupted output with no message lost or duplicated.
//
// Where a kill lands does not depend on the machine's speed. Every attempt waits for the test's
// go (the fixture's `gated`): three kills in four take the next attempt to start and kill its
// worker while the attempt is held, so each is inside an attempt and costs that position a
// re-run (or a reconcile pause and then one) on any machine; that is what makes
// `rerunAttempts >= KILLS / 2` certain. The fourth lets the attempt go first and kills a random
// 0-400 ms later: in the member's 250 ms wait, or after it (in the outcome, the next dispatch,
// a claim), wherever a slow or a fast machine has got to; nothing is counted on those.

const TURNS = 3;
const KILLS = FULL ? 120 : 6;
const WORKERS = 3;
const WORKER_OPTIONS = JSON.stringify({ turns: TURNS, waitMs: 250, concurrency: 2, leaseMs: 1000, nonRetrySafe: ['cy'], gated: true });

let database: TestDatabase;
const children = new Set<ChildProcess>();
beforeAll(async () => {
  assertFreshBuild();
  database = await testDatabase('workers_kill');
});
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});
afterAll(() => database.drop());

it(`runs survive ${KILLS} SIGKILLs of workers mid-attempt: every run completes (reconcile pauses resumed), nothing lost or duplicated`, async () => {
  const reference = await referenceRun(TURNS);
  let spawned = 0;
  /** Set while the test waits for a victim: the next attempt to start, in whichever worker. */
  let takeVictim: ((worker: ChildProcess, attempt: number) => void) | null = null;
  async function spawnWorker(): Promise<ChildProcess> {
    const child = forkFixture('workerProcess.mjs', [database.url, `w${spawned++}`, WORKER_OPTIONS]);
    children.add(child);
    child.on('message', (message: unknown) => {
      if (!isAttempt(message) || child.killed) return;
      const take = takeVictim;
      takeVictim = null;
      if (take === null) letAttemptGo(child, message.attempt);
      else take(child, message.attempt);
    });
    await nextMessage(child, isType('ready'));
    return child;
  }
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => spawnWorker()));

  const client = await createRunClient({ connectionString: database.url });
  const graph = workersTeamGraph(TURNS);
  const submitted: string[] = [];
  const done = new Set<string>();
  let reconciled = 0;
  let kills = 0;

  async function submitMore(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const runId = `kill-${submitted.length}`;
      submitted.push(runId);
      await client.submitRun({ runId, graph });
    }
  }

  /** Answers reconcile pauses and records finished runs; returns how many runs are unfinished. */
  async function check(): Promise<number> {
    for (const runId of submitted) {
      if (done.has(runId)) continue;
      const status = await client.runStatus({ runId });
      if (status.kind === 'pause' && (status.request as { kind?: unknown } | null)?.kind === 'reconcile-attempt') {
        await client.resumeRun({ runId, position: status.position!, value: 'again' }).catch(() => undefined);
        reconciled++;
      } else if (status.kind !== 'waiting') {
        expect(status, runId).toEqual(reference.result);
        done.add(runId);
      }
    }
    return submitted.length - done.size;
  }

  /** Keeps a few runs in progress, so kills spread over many runs and positions. */
  async function keepBusy(): Promise<void> {
    const unfinished = await check();
    if (unfinished < 4) await submitMore(4 - unfinished);
  }

  try {
    await submitMore(6);
    while (kills < KILLS) {
      // Kill whichever worker is the next to start an attempt; keep runs coming meanwhile.
      const taken = new Promise<{ worker: ChildProcess; attempt: number }>((resolve) => (takeVictim = (worker, attempt) => resolve({ worker, attempt })));
      let victim: { worker: ChildProcess; attempt: number } | null = null;
      while (victim === null) {
        victim = await Promise.race([taken, sleep(1000).then(() => null)]);
        if (victim === null) await keepBusy();
      }
      const index = workers.indexOf(victim.worker);
      if (kills % 4 === 3) {
        letAttemptGo(victim.worker, victim.attempt);
        await sleep(Math.random() * 400);
      }
      victim.worker.kill('SIGKILL');
      expect(await exited(victim.worker)).toEqual({ code: null, signal: 'SIGKILL' });
      children.delete(victim.worker);
      kills++;
      workers[index] = await spawnWorker();
      await keepBusy();
    }
    while ((await check()) > 0) await sleep(100);
  } finally {
    await client.close();
  }

  const closed = workers.map((worker) => nextMessage(worker, isType('closed')));
  for (const worker of workers) worker.send({ type: 'close' });
  await Promise.all(closed);

  const storage = createPostgresStorage({ connectionString: database.url });
  try {
    let restarted = 0;
    let rerunAttempts = 0;
    for (const runId of submitted) {
      expect(await savedMessages(storage, runId, TURNS), runId).toEqual(reference.messages);
      for (const [position, counts] of await attemptCounts(storage, runId)) {
        // One completion per position, however many attempts the kills cost it (a reconcile pause is the only other outcome).
        expect(counts.completions, `${runId} ${position}`).toBe(1);
        // Recovery of a retrySafe member re-runs it; of cy (not retrySafe) it records a reconcile pause.
        const pauses = counts.outcomes - counts.completions;
        if (position.startsWith('team/cy/')) expect(pauses, `${runId} ${position}`).toBeLessThanOrEqual(counts.starts - 1);
        else expect(pauses, `${runId} ${position}`).toBe(0);
        expect(counts.last, `${runId} ${position}`).toBe('graph:node-completed');
        if (counts.starts > 1) restarted++;
        rerunAttempts += counts.starts - 1;
      }
    }
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    // The kills really interrupted attempts, and recovery re-ran them (or asked, for cy): each
    // held kill costs its position one more start (a position can be hit again when its
    // recovered attempt is the next one to start), and three kills in four are held.
    expect(rerunAttempts).toBeGreaterThanOrEqual(KILLS / 2);
    expect(restarted).toBeGreaterThan(0);
    console.log(`[faults] workers: ${kills} kills, ${submitted.length} runs, ${restarted} positions re-run (${rerunAttempts} attempts), ${reconciled} reconcile pauses resumed.`);
  } finally {
    await storage.close();
  }
}, FULL ? 1_800_000 : 120_000);
