import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Real child processes killed with SIGKILL at random points of a run, on each durable adapter.
// A fresh process recovers (waiting → resume; reconcile → resume) until the run completes;
// the output and every message must equal an uninterrupted run's, with nothing lost or doubled.

const WORKER = fileURLToPath(new URL('./__fixtures__/crashWorker.mjs', import.meta.url));
// Bounded by default (pnpm test); FAULT_SCALE=full (pnpm test:faults) runs the long form.
const KILLS_PER_ADAPTER = Number(process.env.CRASH_KILLS ?? (process.env.FAULT_SCALE === 'full' ? 200 : 12));

interface WorkerExit {
  stdout: string;
  code: number | null;
  killed: boolean;
}

/**
 * Runs the worker; with `killAfterMs`, kills it that long after it reports ready; with
 * `killOn`, kills it as soon as it prints that line.
 */
function worker(args: string[], killAfterMs?: number, options: { killOn?: string; env?: Record<string, string> } = {}): Promise<WorkerExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killAfterMs !== undefined && stdout.startsWith('ready\n') && !killed) {
        killed = true;
        setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
      if (options.killOn !== undefined && stdout.split('\n').includes(options.killOn) && !killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === null && code !== 0) reject(new Error(`worker failed (${code}): ${stderr}`));
      else resolve({ stdout, code, killed: signal === 'SIGKILL' });
    });
  });
}

const lastLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as unknown;

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
    let kills = 0;
    let runs = 0;
    while (kills < KILLS_PER_ADAPTER) {
      const path = join(scratch, `${kind}-${runs++}-${name}`);
      for (;;) {
        const exit = await worker(['run', kind, path], Math.floor(Math.random() * 40));
        if (!exit.killed) {
          expect(lastLine(exit.stdout)).toEqual(reference.result);
          break;
        }
        kills++;
      }
      const record = lastLine((await worker(['verify', kind, path])).stdout) as typeof reference.record & { outcomes: Record<string, number> };
      expect(record.messages).toEqual(reference.record.messages);
      expect(record.dispatched).toEqual(reference.record.dispatched);
      expect(Object.values(record.outcomes).every((count) => count === 1)).toBe(true);
      expect(Object.keys(record.outcomes).sort()).toEqual([...record.dispatched].sort());
    }
    expect(kills).toBeGreaterThanOrEqual(KILLS_PER_ADAPTER);
  }, 600_000);
});

describe.each([
  ['fs', 'record'],
  ['sqlite', 'record.sqlite'],
])('a crash between a retry and the next attempt on %s', (kind, name) => {
  it('is recovered: waiting, then resume starts the next attempt, and the run ends as an uninterrupted one', async () => {
    const path = join(scratch, `${kind}-retry-${name}`);
    // An hour of backoff: the kill always lands after node-retried and before the next attempt.
    const first = await worker(['run', kind, path], undefined, { killOn: 'retried', env: { CRASH_SAY_RETRIED: '1', CRASH_BACKOFF_MS: '3600000' } });
    expect(first.killed).toBe(true);
    const recovered = await worker(['run', kind, path], undefined, { env: { CRASH_BACKOFF_MS: '0' } });
    expect(recovered.killed).toBe(false);
    expect(lastLine(recovered.stdout)).toEqual(reference.result);
    const record = lastLine((await worker(['verify', kind, path])).stdout) as typeof reference.record & { outcomes: Record<string, number> };
    expect(record.messages).toEqual(reference.record.messages);
    expect(Object.values(record.outcomes).every((count) => count === 1)).toBe(true);
  }, 120_000);
});
