import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FULL } from '@roundtable/test-utils';
import { killWritersMidAppend } from '@roundtable/test-utils/harness';
import { createSqliteStorage } from '../src/index.js';
import { childProcessScratch, forkFixture } from './helpers.js';

const { children, directory } = childProcessScratch();

const KILLS = FULL ? 100 : 12;

// crash.test.ts kills writers 5–40 ms after they are ready, mostly before an instance has
// committed often enough to start its checkpoint worker; these writers live 150–600 ms, long
// enough to start it and to be killed while background checkpoints copy the WAL.
it(`survives ${KILLS} SIGKILLs of writers whose background checkpoints are running: every batch whole, nothing acknowledged lost`, async () => {
  const filename = join(directory(), 'runs.db');
  const acknowledged = await killWritersMidAppend({
    kills: KILLS,
    fork: (name, streams, round) => forkFixture('crashWorker.mjs', [filename, name, streams, round % 2 === 0 ? 'full' : 'normal']),
    children,
    open: () => createSqliteStorage({ filename }),
    freshInstancePerCheck: true,
    killDelayMs: { min: 150, max: 600 },
  });
  expect(acknowledged).toBeGreaterThan(0);
}, KILLS * 5_000);
