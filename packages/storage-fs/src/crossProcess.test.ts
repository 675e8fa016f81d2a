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
const BATCH_SIZE = 3;
// Both processes pack the stream into segments every few batches, so packing races too.
const SEGMENT_BATCHES = 8;
const WORKER = fileURLToPath(new URL('./__fixtures__/raceWorker.mjs', import.meta.url));

interface RoundReport {
  round: number;
  head: number;
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
  const failed = new Promise<never>((_, reject) => {
    child.on('exit', (code, signal) => reject(new Error(`race worker ${name} exited (${code ?? signal})`)));
  });
  failed.catch(() => undefined);
  const next = (): Promise<unknown> => (inbox.length > 0 ? Promise.resolve(inbox.shift()) : Promise.race([new Promise((resolve) => waiting.push(resolve)), failed]));
  return { name, child, next };
}

describe('two processes racing on one stream', () => {
  it(`let exactly one append win per expected revision over ${ROUNDS} rounds, and lose or duplicate nothing`, { timeout: ROUNDS * 600 }, async () => {
    const entry = builtEntry();
    const directory = tempDirectory();
    const workers = [startWorker(entry, directory, 'left'), startWorker(entry, directory, 'right')];
    const winners: string[] = [];
    let contested = 0;
    try {
      await Promise.all(workers.map((worker) => worker.next()));
      for (let round = 0; round < ROUNDS; round++) {
        const expected = round * BATCH_SIZE;
        // Alternate who is told first so neither gets a head start every time.
        const order = round % 2 === 0 ? workers : [...workers].reverse();
        for (const worker of order) worker.child.send({ round, expected });
        const reports = (await Promise.all(workers.map((worker) => worker.next()))) as RoundReport[];
        for (const report of reports) {
          expect(report.round).toBe(round);
          // head() sees the previous round's batch, and maybe the other process's win already.
          expect([expected, expected + BATCH_SIZE]).toContain(report.head);
          if (report.head > expected) expect(report.outcome).toBe('REVISION_CONFLICT');
        }
        if (reports.every((report) => report.head === expected)) contested++;
        const outcomes = reports.map((report) => report.outcome).sort();
        expect(outcomes).toEqual(['REVISION_CONFLICT', 'win']);
        winners.push(workers[reports.findIndex((report) => report.outcome === 'win')]!.name);
      }
    } finally {
      for (const worker of workers) worker.child.disconnect();
    }

    const storage = createFsStorage({ directory });
    const head = await storage.head('race');
    expect(head).toBe(ROUNDS * BATCH_SIZE);
    expect(winners.length).toBe(head / BATCH_SIZE);
    const events = await collect(storage.read('race'));
    expect(events.map((event) => event.revision)).toEqual(Array.from({ length: head }, (_, index) => index + 1));
    // Each round's batch is whole and is the winner's: no event lost, duplicated or mixed in.
    const expectedIds = winners.flatMap((winner, round) => Array.from({ length: BATCH_SIZE }, (_, index) => `${winner}-${round}-${index}`));
    expect(events.map((event) => event.eventId)).toEqual(expectedIds);
    // One batch per round on disk, packed or not, and nothing else but the head marker.
    const layout = folderLayout(join(directory, 'default', 'race'));
    expect(layout.batchFiles + layout.packedBatches).toBe(ROUNDS);
    expect(layout.leftovers).toBe(0);
    expect(layout.other).toEqual([]);
    expect(layout.segments).toBeGreaterThan(0);
    expect(readdirSync(join(directory, 'default', '.tmp'))).toEqual([]);
    const wins = { left: winners.filter((name) => name === 'left').length, right: winners.filter((name) => name === 'right').length };
    // Both processes really competed.
    expect(wins.left).toBeGreaterThan(0);
    expect(wins.right).toBeGreaterThan(0);
    // In most rounds both had read the same head before either appended.
    expect(contested).toBeGreaterThan(ROUNDS / 4);
    console.info(`race: ${ROUNDS} rounds, wins ${JSON.stringify(wins)}, ${contested} rounds where both read the same head first, ${layout.segments} segments`);
  });
});
