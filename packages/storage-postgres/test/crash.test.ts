import { randomInt } from 'node:crypto';
import { expect, it } from 'vitest';
import { killWritersMidAppend } from '@roundtable/test-utils/harness';
import { createPostgresStorage } from '../src/index.js';
import { FULL, childProcessDatabase, forkFixture } from './__fixtures__/helpers.js';

const KILLS = FULL ? 1_000 : 24;

/** Up to this many commits before a kill: a commit waits for the server's WAL flush, so about 30 ms of appending on a quiet machine. */
const MAX_COMMITS = 6;

const { children, database } = childProcessDatabase('crash');

it(`SIGKILL of client processes mid-append (${KILLS} kills): every batch whole or absent, nothing acknowledged lost, appending continues`, async () => {
  let awaited = 0;
  // Three writers at a time, each killed and replaced; one instance in this process checks after
  // every kill, a fresh one reads everything at the end. A kill is set by the commits the writer
  // has reported, never by a delay: every third writer is killed as soon as it is ready (connected,
  // around its first append), the others once they have reported 1 to MAX_COMMITS commits; then
  // 0–5 ms more, so the kill lands anywhere in the append in flight.
  const commitsBeforeKill = (round: number) => {
    const commits = round % 3 === 0 ? 0 : randomInt(1, MAX_COMMITS + 1);
    awaited += commits;
    return commits;
  };
  const acknowledged = await killWritersMidAppend({
    kills: KILLS,
    fork: (name, streams) => forkFixture('crashWorker.mjs', [database().url, name, streams]),
    children,
    open: () => createPostgresStorage({ connectionString: database().url }),
    freshInstancePerCheck: false,
    commitsBeforeKill,
    jitterMs: 5,
  });
  // The writers got real work done between kills: at least the commits each was killed after,
  // which two writers in three have (however loaded the machine).
  expect(awaited).toBeGreaterThan(0);
  expect(acknowledged).toBeGreaterThanOrEqual(awaited);
}, FULL ? 1_800_000 : 120_000);
