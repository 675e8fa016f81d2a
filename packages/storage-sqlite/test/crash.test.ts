import { randomInt } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FULL } from '@roundtable/test-utils';
import { killWritersMidAppend } from '@roundtable/test-utils/harness';
import { createSqliteStorage } from '../src/index.js';
import { CONTENDED_BUSY_TIMEOUT_MS, childProcessScratch, forkFixture } from './__fixtures__/helpers.js';

const { children, directory } = childProcessScratch();

// FAULT_SCALE=full (`pnpm test:faults`) runs the long form: 1,000 kills over 10 database files
// (fast NORMAL-mode writers fill a file quickly; a file per 100 kills keeps each one's reads and
// its disk use small); 40 kills on one file by default.
const FILES = FULL ? 10 : 1;
const KILLS_PER_FILE = FULL ? 100 : 40;
const KILLS = FILES * KILLS_PER_FILE;

/**
 * Every other writer uses synchronous NORMAL (a process crash loses nothing in either mode: only
 * a power loss can cost NORMAL its last commits). A FULL commit waits for a sync, a NORMAL one
 * does not, so each gets a range of commits that takes about as long: up to 8 and up to 100
 * (about 40 ms on a quiet machine, as long as the writers used to live).
 */
const synchronousOf = (round: number) => (round % 2 === 0 ? 'full' : 'normal');
const MAX_COMMITS = { full: 8, normal: 100 } as const;

it(`survives ${KILLS} SIGKILLs at random moments mid-append: every batch whole, nothing acknowledged lost, appending continues`, async () => {
  let acknowledged = 0;
  let awaited = 0;
  // A kill is set by the commits the writer has reported, never by a delay: every third writer
  // is killed as soon as it is ready (the file open, around its first append), the others once
  // they have reported 1 to MAX_COMMITS commits; then 0–5 ms more, so the kill lands anywhere
  // in the append in flight.
  const commitsBeforeKill = (round: number) => {
    const commits = round % 3 === 0 ? 0 : randomInt(1, MAX_COMMITS[synchronousOf(round)] + 1);
    awaited += commits;
    return commits;
  };
  for (let file = 0; file < FILES; file++) {
    const filename = join(directory(), `runs-${file}.db`);
    // Three writers at a time on one file; a fresh instance checks after each kill.
    acknowledged += await killWritersMidAppend({
      kills: KILLS_PER_FILE,
      firstRound: file * KILLS_PER_FILE,
      fork: (name, streams, round) => forkFixture('crashWorker.mjs', [filename, name, streams, synchronousOf(round), String(CONTENDED_BUSY_TIMEOUT_MS)]),
      children,
      open: () => createSqliteStorage({ filename, busyTimeoutMs: CONTENDED_BUSY_TIMEOUT_MS }),
      freshInstancePerCheck: true,
      commitsBeforeKill,
      jitterMs: 5,
    });
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${filename}${suffix}`, { force: true });
  }
  // The writers got real work done between kills: at least the commits each was killed after,
  // which two writers in three have (however loaded the machine).
  expect(awaited).toBeGreaterThan(0);
  expect(acknowledged).toBeGreaterThanOrEqual(awaited);
}, KILLS * 1_800);
