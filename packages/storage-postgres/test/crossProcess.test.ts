import { describe, it } from 'vitest';
import { raceTwoProcesses } from '@roundtable/test-utils/harness';
import { createPostgresStorage } from '../src/index.js';
import { FULL, childProcessDatabase, forkFixture } from './helpers.js';

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
  });
});
