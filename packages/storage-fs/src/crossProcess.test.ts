import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createFsStorage } from './index.js';
import { builtEntry, collect, folderLayout, removeTempDirectories, tempDirectory } from './__fixtures__/support.js';

afterAll(removeTempDirectories);

// 1,000 rounds in the long form (FAULT_SCALE=full, `pnpm test:faults`), 200 by default.
const ROUNDS = process.env.FAULT_SCALE === 'full' ? 1000 : 200;
// Which process wins a round is up to the scheduler (the one told first wins four to six in ten).
// If either has not won once after ROUNDS rounds, racing goes on until it has, up to this many
// rounds in all; only then does the test fail.
const MAX_ROUNDS = 4 * ROUNDS;
const BATCH_SIZE = 3;
// Both processes pack the stream into segments every few batches, so packing races too.
const SEGMENT_BATCHES = 8;
const WORKER = fileURLToPath(new URL('./__fixtures__/raceWorker.mjs', import.meta.url));

interface ReadReport {
  round: number;
  head: number;
}

interface AppendReport {
  round: number;
  outcome: string;
}

/** A race worker process, and a way to wait for its next message. */
function startWorker(entry: string, directory: string, name: string) {
  const child: ChildProcess = fork(WORKER, [entry, directory, name, String(BATCH_SIZE), String(SEGMENT_BATCHES)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: unknown[] = [];
  const waiting: ((message: unknown) => void)[] = [];
  child.on('message', (message) => {
    const resolve = waiting.shift();
    if (resolve) resolve(message);
    else inbox.push(message);
  });
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const failed = exited.then((end) => Promise.reject(new Error(`race worker ${name} exited (${end})`)));
  failed.catch(() => undefined);
  const next = (): Promise<unknown> => (inbox.length > 0 ? Promise.resolve(inbox.shift()) : Promise.race([new Promise((resolve) => waiting.push(resolve)), failed]));
  /** Disconnects it; it closes its storage (a queued pack and its removals finish) and exits. Resolves to its exit code. */
  const stop = (): Promise<number | string | null> => {
    if (child.connected) child.disconnect();
    return exited;
  };
  return { name, child, next, stop };
}

describe('two processes racing on one stream', () => {
  it(`let exactly one append win per expected revision over ${ROUNDS} rounds, and lose or duplicate nothing`, { timeout: MAX_ROUNDS * 150 }, async () => {
    const entry = builtEntry();
    const directory = tempDirectory();
    const workers = [startWorker(entry, directory, 'left'), startWorker(entry, directory, 'right')];
    const winners: string[] = [];
    let firstToldWon = 0;
    let exits: (number | string | null)[] | undefined;
    const bothWon = () => winners.includes('left') && winners.includes('right');
    try {
      await Promise.all(workers.map((worker) => worker.next()));
      for (let round = 0; round < MAX_ROUNDS && (round < ROUNDS || !bothWon()); round++) {
        const expected = round * BATCH_SIZE;
        // Every round is contested: both read the head, and only once both have read it (and
        // seen the previous round's batch, whoever wrote it) are both told to append.
        for (const worker of workers) worker.child.send({ step: 'read', round });
        const reads = (await Promise.all(workers.map((worker) => worker.next()))) as ReadReport[];
        expect(reads).toEqual([
          { round, head: expected },
          { round, head: expected },
        ]);
        // Alternate who is told first so neither gets a head start every time.
        const order = round % 2 === 0 ? workers : [...workers].reverse();
        for (const worker of order) worker.child.send({ step: 'append', round, expected });
        const reports = (await Promise.all(workers.map((worker) => worker.next()))) as AppendReport[];
        for (const report of reports) expect(report.round).toBe(round);
        const outcomes = reports.map((report) => report.outcome).sort();
        expect(outcomes).toEqual(['REVISION_CONFLICT', 'win']);
        const winner = workers[reports.findIndex((report) => report.outcome === 'win')]!;
        winners.push(winner.name);
        if (winner === order[0]) firstToldWon++;
      }
    } finally {
      // Waiting for the exits: a pack queued behind the last append, and its removals, must be
      // done before the layout is checked.
      exits = await Promise.all(workers.map((worker) => worker.stop()));
    }
    expect(exits).toEqual([0, 0]);
    const rounds = winners.length;
    const wins = { left: winners.filter((name) => name === 'left').length, right: winners.filter((name) => name === 'right').length };
    // Both processes really competed: each won some rounds.
    expect(wins.left, `left never won in ${rounds} rounds`).toBeGreaterThan(0);
    expect(wins.right, `right never won in ${rounds} rounds`).toBeGreaterThan(0);

    const storage = createFsStorage({ directory });
    const head = await storage.head('race');
    expect(head).toBe(rounds * BATCH_SIZE);
    const events = await collect(storage.read('race'));
    expect(events.map((event) => event.revision)).toEqual(Array.from({ length: head }, (_, index) => index + 1));
    // Each round's batch is whole and is the winner's: no event lost, duplicated or mixed in.
    const expectedIds = winners.flatMap((winner, round) => Array.from({ length: BATCH_SIZE }, (_, index) => `${winner}-${round}-${index}`));
    expect(events.map((event) => event.eventId)).toEqual(expectedIds);
    // One batch per round on disk, packed or not, and nothing else but the head marker.
    const layout = folderLayout(join(directory, 'default', 'race'));
    expect(layout.batchFiles + layout.packedBatches).toBe(rounds);
    expect(layout.leftovers).toBe(0);
    expect(layout.other).toEqual([]);
    // Packing is due every SEGMENT_BATCHES batches, and close() waits for a queued pack: by construction.
    expect(layout.segments).toBeGreaterThan(0);
    expect(readdirSync(join(directory, 'default', '.tmp'))).toEqual([]);
    console.info(`race: ${rounds} rounds, all contested, wins ${JSON.stringify(wins)}, ${firstToldWon} won by the process told first, ${layout.segments} segments`);
  });
});
