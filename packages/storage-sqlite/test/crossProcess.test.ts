import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { FULL } from '@roundtable/test-utils';
import { raceTwoProcesses } from '@roundtable/test-utils/harness';
import { createSqliteStorage } from '../src/index.js';
import { childProcessScratch, exited, forkFixture, messageOfType, nextMessage } from './helpers.js';

// 1,000 rounds in the long form (FAULT_SCALE=full, `pnpm test:faults`), 200 by default.
const ROUNDS = FULL ? 1000 : 200;

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
      fork: (name) => forkFixture('raceWorker.mjs', [filename, name]),
      children,
      open: () => createSqliteStorage({ filename }),
    });
  }, ROUNDS * 600);

  it('two processes opening a fresh file at the same moment both work, and it is migrated once', async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const filename = join(directory(), `fresh-${attempt}.db`);
      const workers = ['one', 'two'].map((name) => fork('openWorker.mjs', [filename, name]));
      await Promise.all(workers.map((worker) => nextMessage(worker, messageOfType('booted'))));
      const outcomes = workers.map((worker) => nextMessage(worker, (message): message is { type: string; head?: number; message?: string } => typeof message === 'object' && message !== null));
      const startAt = Date.now() + 50;
      for (const worker of workers) worker.send({ startAt });
      expect(await Promise.all(outcomes)).toEqual([
        { type: 'opened', head: 1 },
        { type: 'opened', head: 1 },
      ]);
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
  }, 120_000);
});
