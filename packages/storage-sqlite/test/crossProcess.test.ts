import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { FULL } from '@roundtable/test-utils';
import { raceTwoProcesses } from '@roundtable/test-utils/harness';
import { createSqliteStorage } from '../src/index.js';
import { CONTENDED_BUSY_TIMEOUT_MS, childProcessScratch, exited, forkFixture, messageOfType, nextMessage } from './__fixtures__/helpers.js';

// 1,000 rounds in the long form (FAULT_SCALE=full, `pnpm test:faults`), 200 by default (more,
// up to four times as many, if one process has won none by then).
const ROUNDS = FULL ? 1000 : 200;
/** Attempts at opening a fresh file in which both processes were ready and waiting when the moment came. */
const TOGETHER = 10;

const { children, directory } = childProcessScratch();

function fork(name: string, args: string[]): ChildProcess {
  const child = forkFixture(name, args);
  children.push(child);
  return child;
}

describe('several processes on one file', () => {
  it(`two processes racing ${ROUNDS} rounds on one expected revision: exactly one wins each, nothing lost or duplicated`, async () => {
    const filename = join(directory(), 'runs.db');
    await raceTwoProcesses({
      rounds: ROUNDS,
      freeForAll: 300,
      fork: (name) => forkFixture('raceWorker.mjs', [filename, name, String(CONTENDED_BUSY_TIMEOUT_MS)]),
      children,
      open: () => createSqliteStorage({ filename, busyTimeoutMs: CONTENDED_BUSY_TIMEOUT_MS }),
    });
  }, ROUNDS * 600);

  it('two processes opening a fresh file at the same moment both work, and it is migrated once', async () => {
    // Each attempt counts only if both processes were waiting for the agreed moment when it came
    // (on a loaded machine a message can arrive after it, and then they did not open together):
    // attempts go on until 10 have, failing only if 40 could not get there.
    let together = 0;
    let attempt = 0;
    for (; together < TOGETHER && attempt < 4 * TOGETHER; attempt++) {
      const filename = join(directory(), `fresh-${attempt}.db`);
      const workers = ['one', 'two'].map((name) => fork('openWorker.mjs', [filename, name]));
      await Promise.all(workers.map((worker) => nextMessage(worker, messageOfType('booted'))));
      const outcomes = workers.map((worker) => nextMessage(worker, (message): message is { type: string; head?: number; message?: string; late: boolean } => typeof message === 'object' && message !== null));
      const startAt = Date.now() + 50;
      for (const worker of workers) worker.send({ startAt });
      const results = await Promise.all(outcomes);
      expect(results.map(({ late: _, ...outcome }) => outcome)).toEqual([
        { type: 'opened', head: 1 },
        { type: 'opened', head: 1 },
      ]);
      if (results.every((result) => !result.late)) together++;
      await Promise.all(workers.map((worker) => exited(worker)));
      const db = new Database(filename, { readonly: true });
      expect(db.prepare('SELECT version FROM roundtable_migrations').pluck().all()).toEqual([1]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare('SELECT stream_id, head FROM streams ORDER BY stream_id').all()).toEqual([
        { stream_id: 'one', head: 1 },
        { stream_id: 'two', head: 1 },
      ]);
      db.close();
    }
    expect(together, `in only ${together} of ${attempt} attempts were both processes waiting for the agreed moment`).toBe(TOGETHER);
  }, 120_000);
});
