import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FULL } from '@roundtable/test-utils';
import { killWritersMidAppend } from '@roundtable/test-utils/harness';
import { createSqliteStorage } from '../src/index.js';
import { childProcessScratch, forkFixture } from './helpers.js';

const { children, directory } = childProcessScratch();

// FAULT_SCALE=full (`pnpm test:faults`) runs the long form: 1,000 kills over 10 database files
// (fast NORMAL-mode writers fill a file quickly; a file per 100 kills keeps each one's reads and
// its disk use small); 40 kills on one file by default.
const FILES = FULL ? 10 : 1;
const KILLS_PER_FILE = FULL ? 100 : 40;
const KILLS = FILES * KILLS_PER_FILE;

it(`survives ${KILLS} SIGKILLs at random moments mid-append: every batch whole, nothing acknowledged lost, appending continues`, async () => {
  let acknowledged = 0;
  for (let file = 0; file < FILES; file++) {
    const filename = join(directory(), `runs-${file}.db`);
    // Three writers at a time on one file, each killed 5–40 ms after it is ready; a fresh
    // instance checks after each kill. Every other writer uses synchronous NORMAL (a process
    // crash loses nothing in either mode: only a power loss can cost NORMAL its last commits).
    acknowledged += await killWritersMidAppend({
      kills: KILLS_PER_FILE,
      firstRound: file * KILLS_PER_FILE,
      fork: (name, streams, round) => forkFixture('crashWorker.mjs', [filename, name, streams, round % 2 === 0 ? 'full' : 'normal']),
      children,
      open: () => createSqliteStorage({ filename }),
      freshInstancePerCheck: true,
      killDelayMs: { min: 5, max: 40 },
    });
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${filename}${suffix}`, { force: true });
  }
  // The writers got real work done between kills (how much depends on the machine's load).
  expect(acknowledged).toBeGreaterThan(0);
}, KILLS * 1_800);
