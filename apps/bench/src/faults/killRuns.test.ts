import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, countKill, faultCounts, reportFaults } from './faultReport.js';

// SIGKILL a process running the fault team at random points, on each durable adapter, many
// times; a fresh process recovers until the run completes. The output and the projected room
// files must equal an uninterrupted run's: no message lost, none doubled.

const WORKER = fileURLToPath(new URL('../__fixtures__/faultWorker.mjs', import.meta.url));
// The long form reaches the reliability goal of 1,000 SIGKILLs per durable adapter, in two
// lanes of runs at once (each lane's work is its child processes, so two fit on two cores).
const KILLS = FULL ? 1_000 : 30;
const LANES = FULL ? 2 : 1;
const TURNS = 12;

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
      else reject(new Error(`fault worker exited ${code}: ${stderr}`));
    });
  });
}

const outcome = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as { result: unknown; rooms: { roomId: string; text: string }[] };

const sortedLines = (room: { roomId: string; text: string }) => ({ roomId: room.roomId, lines: room.text.split('\n').sort() });

let scratch: string;
let reference: ReturnType<typeof outcome>;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'roundtable-faults-'));
  reference = outcome((await worker(['memory', '', join(scratch, 'reference-rooms'), String(TURNS)])).stdout);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  reportFaults('kills');
});

describe.each(['fs', 'sqlite'])('killing runs on %s', (kind) => {
  it(`recovers to the uninterrupted output and rooms after ${KILLS} kills`, async () => {
    let kills = 0;
    let runs = 0;
    let failed = false;
    // Each lane kills and recovers runs, one record at a time, until the lanes together reach
    // KILLS; a failing lane stops the others, so none goes on in the background.
    const lane = async () => {
      while (kills < KILLS && !failed) {
        const run = runs++;
        const record = join(scratch, `${kind}-${run}`);
        const rooms = join(scratch, `${kind}-${run}-rooms`);
        for (;;) {
          const exit = await worker([kind, kind === 'fs' ? record : `${record}.sqlite`, rooms, String(TURNS)], Math.floor(Math.random() * 60));
          if (exit.killed) {
            kills++;
            countKill(kind);
            continue;
          }
          const finished = outcome(exit.stdout);
          expect(finished.result).toEqual(reference.result);
          // Attempts of one batch finish in any order, so lines are compared as sets: the same
          // message ids with the same text, each exactly once.
          expect(finished.rooms.map(sortedLines)).toEqual(reference.rooms.map(sortedLines));
          faultCounts.recoveredRuns++;
          break;
        }
        await rm(record, { recursive: true, force: true });
        await rm(`${record}.sqlite`, { force: true });
        await rm(`${record}.sqlite-wal`, { force: true });
        await rm(`${record}.sqlite-shm`, { force: true });
        await rm(rooms, { recursive: true, force: true });
      }
    };
    const settled = await Promise.allSettled(
      Array.from({ length: LANES }, () =>
        lane().catch((error: unknown) => {
          failed = true;
          throw error;
        }),
      ),
    );
    for (const result of settled) if (result.status === 'rejected') throw result.reason;
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    expect(reference.rooms[0]!.text.split('\n').length).toBeGreaterThan(TURNS);
    console.log(`[faults] kills on ${kind}: ${kills} SIGKILLs over ${runs} runs, every run recovered to the uninterrupted output`);
  });
});
