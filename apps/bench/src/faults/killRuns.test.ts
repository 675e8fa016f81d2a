import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastJsonLine, runKillable } from '@roundtable/test-utils';
import { FULL, countKill, faultCounts, reportFaults } from './faultReport.js';
import { killOnSteps } from './killOnSteps.js';

// SIGKILL a process running the fault team at random points, on each durable adapter, many
// times; a fresh process recovers until the run completes. The output and the projected room
// files must equal an uninterrupted run's: no message lost, none doubled. Each kill lands on a
// random one of the first MAX_STEP durable writes its process reports (killOnSteps.ts), not on a
// clock, so the kill count is reached the same way on a loaded machine as on a quiet one.

const WORKER = fileURLToPath(new URL('../__fixtures__/faultWorker.mjs', import.meta.url));
// The long form reaches the reliability goal of 1,000 SIGKILLs per durable adapter, in two
// lanes of runs at once (each lane's work is its child processes, so two fit on two cores).
const KILLS = FULL ? 1_000 : 30;
const LANES = FULL ? 2 : 1;
const TURNS = 12;
// A run of TURNS turns takes 28 steps uninterrupted (26 appends, the run's end, the room files),
// and each recovery adds a few of its own (a reconcile, a resume): about 15 kills per run, the
// last ones often after its last append.
const MAX_STEP = 8;

type Outcome = { result: unknown; rooms: { roomId: string; text: string }[] };

const sortedLines = (room: { roomId: string; text: string }) => ({ roomId: room.roomId, lines: room.text.split('\n').sort() });

let scratch: string;
let reference: Outcome;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'roundtable-faults-'));
  reference = lastJsonLine<Outcome>((await runKillable(WORKER, ['memory', '', join(scratch, 'reference-rooms'), String(TURNS)])).stdout);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  reportFaults('kills');
});

describe.each(['fs', 'sqlite'])('killing runs on %s', (kind) => {
  it(`recovers to the uninterrupted output and rooms after ${KILLS} kills`, async () => {
    // Each lane kills and recovers runs, one record at a time, until the lanes together reach
    // KILLS; a failing lane stops the others, so none goes on in the background.
    const record = (run: number) => join(scratch, `${kind}-${run}`);
    const rooms = (run: number) => join(scratch, `${kind}-${run}-rooms`);
    const { kills, runs } = await killOnSteps({
      kills: KILLS,
      lanes: LANES,
      maxStep: MAX_STEP,
      attempt: (run, kill) => runKillable(WORKER, [kind, kind === 'fs' ? record(run) : `${record(run)}.sqlite`, rooms(run), String(TURNS)], kill),
      onKill: () => countKill(kind),
      finished: async (run, stdout) => {
        const finished = lastJsonLine<Outcome>(stdout);
        expect(finished.result).toEqual(reference.result);
        // Attempts of one batch finish in any order, so lines are compared as sets: the same
        // message ids with the same text, each exactly once.
        expect(finished.rooms.map(sortedLines)).toEqual(reference.rooms.map(sortedLines));
        faultCounts.recoveredRuns++;
        await rm(record(run), { recursive: true, force: true });
        await rm(`${record(run)}.sqlite`, { force: true });
        await rm(`${record(run)}.sqlite-wal`, { force: true });
        await rm(`${record(run)}.sqlite-shm`, { force: true });
        await rm(rooms(run), { recursive: true, force: true });
      },
    });
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    expect(reference.rooms[0]!.text.split('\n').length).toBeGreaterThan(TURNS);
    console.log(`[faults] kills on ${kind}: ${kills} SIGKILLs over ${runs} runs, every run recovered to the uninterrupted output`);
  });
});
