import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastJsonLine, runKillable } from '@roundtable/test-utils';
import type { KillableOptions } from '@roundtable/test-utils';
import { killOnSteps } from './killOnSteps.js';

// The scheduler's crash recovery (SPEC 7, 11.4): real child processes killed with SIGKILL at
// random points of a run, on each durable adapter. A fresh process recovers (waiting → resume;
// reconcile → resume) until the run completes; the output and every message must equal an
// uninterrupted run's, with nothing lost or doubled. Each kill lands on a random one of the
// first MAX_STEP durable writes its process reports (killOnSteps.ts), not on a clock, so the
// kill count is reached the same way on a loaded machine as on a quiet one. (Moved here from
// @roundtable/scheduler's suite: it runs the executor on the fs and SQLite adapters.)

const WORKER = fileURLToPath(new URL('../__fixtures__/crashWorker.mjs', import.meta.url));
// Bounded by default (pnpm test); FAULT_SCALE=full (pnpm test:faults) runs the long form.
const KILLS_PER_ADAPTER = Number(process.env.CRASH_KILLS ?? (process.env.FAULT_SCALE === 'full' ? 200 : 12));
// A run takes 69 steps uninterrupted (68 appends and the run's end), and each recovery adds a
// few of its own (a reconcile, a resume): about 18 kills per run.
const MAX_STEP = 12;

/** Runs the crash worker; with `killOnLine`, kills it as soon as it prints that line. */
const worker = (args: string[], options: KillableOptions = {}) => runKillable(WORKER, args, options);

const lastLine = (stdout: string) => lastJsonLine(stdout);

let scratch: string;
let reference: { result: unknown; record: { messages: unknown[]; dispatched: string[] } };
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'scheduler-crash-'));
  reference = lastLine((await worker(['both', 'memory', ''])).stdout) as typeof reference;
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe.each([
  ['fs', 'record'],
  ['sqlite', 'record.sqlite'],
])('crash recovery on %s', (kind, name) => {
  it(`reaches the uninterrupted output after ${KILLS_PER_ADAPTER} kills, losing and doubling nothing`, async () => {
    const path = (run: number) => join(scratch, `${kind}-${run}-${name}`);
    const { kills, runs } = await killOnSteps({
      kills: KILLS_PER_ADAPTER,
      maxStep: MAX_STEP,
      attempt: (run, kill) => worker(['run', kind, path(run)], kill),
      finished: async (run, stdout) => {
        expect(lastLine(stdout)).toEqual(reference.result);
        const record = lastLine((await worker(['verify', kind, path(run)])).stdout) as typeof reference.record & { outcomes: Record<string, number> };
        expect(record.messages).toEqual(reference.record.messages);
        expect(record.dispatched).toEqual(reference.record.dispatched);
        expect(Object.values(record.outcomes).every((count) => count === 1)).toBe(true);
        expect(Object.keys(record.outcomes).sort()).toEqual([...record.dispatched].sort());
      },
    });
    expect(kills).toBeGreaterThanOrEqual(KILLS_PER_ADAPTER);
    console.log(`[faults] crash recovery on ${kind}: ${kills} SIGKILLs over ${runs} runs, every run recovered to the uninterrupted output`);
  }, 600_000);
});

describe.each([
  ['fs', 'record'],
  ['sqlite', 'record.sqlite'],
])('a crash between a retry and the next attempt on %s', (kind, name) => {
  it('is recovered: waiting, then resume starts the next attempt, and the run ends as an uninterrupted one', async () => {
    const path = join(scratch, `${kind}-retry-${name}`);
    // An hour of backoff: the kill always lands after node-retried and before the next attempt.
    const first = await worker(['run', kind, path], { killOnLine: 'retried', env: { CRASH_SAY_RETRIED: '1', CRASH_BACKOFF_MS: '3600000' } });
    expect(first.killed).toBe(true);
    const recovered = await worker(['run', kind, path], { env: { CRASH_BACKOFF_MS: '0' } });
    expect(recovered.killed).toBe(false);
    expect(lastLine(recovered.stdout)).toEqual(reference.result);
    const record = lastLine((await worker(['verify', kind, path])).stdout) as typeof reference.record & { outcomes: Record<string, number> };
    expect(record.messages).toEqual(reference.record.messages);
    expect(Object.values(record.outcomes).every((count) => count === 1)).toBe(true);
  }, 120_000);
});
