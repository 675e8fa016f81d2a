import { expect, it } from 'vitest';
import { killWritersMidAppend } from '@roundtable/test-utils/harness';
import { createPostgresStorage } from '../src/index.js';
import { FULL, childProcessDatabase, forkFixture } from './helpers.js';

const KILLS = FULL ? 1_000 : 24;

const { children, database } = childProcessDatabase('crash');

it(`SIGKILL of client processes mid-append (${KILLS} kills): every batch whole or absent, nothing acknowledged lost, appending continues`, async () => {
  // Three writers at a time, each killed 2–30 ms after it is ready and replaced; one instance in
  // this process checks after every kill, a fresh one reads everything at the end.
  const acknowledged = await killWritersMidAppend({
    kills: KILLS,
    fork: (name, streams) => forkFixture('crashWorker.mjs', [database().url, name, streams]),
    children,
    open: () => createPostgresStorage({ connectionString: database().url }),
    freshInstancePerCheck: false,
    killDelayMs: { min: 2, max: 30 },
  });
  expect(acknowledged).toBeGreaterThan(0);
}, FULL ? 1_800_000 : 120_000);
