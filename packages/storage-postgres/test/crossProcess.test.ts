import { describe, it } from 'vitest';
import { raceTwoProcesses } from '@roundtable/test-utils/harness';
import { createPostgresStorage } from '../src/index.js';
import { FULL, childProcessDatabase, forkFixture } from './__fixtures__/helpers.js';

// 1,000 rounds in the long form (FAULT_SCALE=full, `pnpm test:faults`), 200 by default (more,
// up to four times as many, if one process has won none by then).
const ROUNDS = FULL ? 1000 : 200;
const FREE_FOR_ALL = FULL ? 300 : 100;

const { children, database } = childProcessDatabase('race');

describe('two processes on one database', () => {
  it(`race ${ROUNDS} rounds on one expected revision: exactly one wins each, nothing lost or duplicated`, async () => {
    await raceTwoProcesses({
      rounds: ROUNDS,
      freeForAll: FREE_FOR_ALL,
      fork: (name) => forkFixture('raceWorker.mjs', [database().url, name]),
      children,
      open: () => createPostgresStorage({ connectionString: database().url }),
    });
  }, ROUNDS * 600);
});
