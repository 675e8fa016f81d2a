import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FULL } from '@roundtable/test-utils';
import { killWritersMidAppend } from '@roundtable/test-utils/harness';
import { createSqliteStorage } from '../src/index.js';
import { COMMITS_PER_CHECKPOINT } from '../src/walCheckpointer.js';
import { CONTENDED_BUSY_TIMEOUT_MS, childProcessScratch, forkFixture } from './__fixtures__/helpers.js';

const { children, directory } = childProcessScratch();

const KILLS = FULL ? 100 : 12;

const synchronousOf = (round: number) => (round % 2 === 0 ? 'full' : 'normal');

// crash.test.ts kills most writers before an instance has committed often enough to start its
// checkpoint worker. Here every NORMAL writer is killed only once it has reported at least
// COMMITS_PER_CHECKPOINT commits, so it has always started its worker and asked it for a
// checkpoint, and at most 3 times that many, while the worker goes on checkpointing (it is
// asked again at the first commit after each checkpoint, once that many more have been made).
// The kill is set by the writer's progress, not by a delay that a loaded machine may not fill.
// The FULL writers beside them (no worker: SQLite's own checkpoints) make 10–40 commits.
function commitsBeforeKill(round: number): number {
  return synchronousOf(round) === 'normal' ? randomInt(COMMITS_PER_CHECKPOINT, 3 * COMMITS_PER_CHECKPOINT + 1) : randomInt(10, 41);
}

it(`survives ${KILLS} SIGKILLs of writers whose background checkpoints are running: every batch whole, nothing acknowledged lost`, async () => {
  const filename = join(directory(), 'runs.db');
  let awaited = 0;
  const acknowledged = await killWritersMidAppend({
    kills: KILLS,
    fork: (name, streams, round) => forkFixture('crashWorker.mjs', [filename, name, streams, synchronousOf(round), String(CONTENDED_BUSY_TIMEOUT_MS)]),
    children,
    open: () => createSqliteStorage({ filename, busyTimeoutMs: CONTENDED_BUSY_TIMEOUT_MS }),
    freshInstancePerCheck: true,
    commitsBeforeKill: (round) => {
      const commits = commitsBeforeKill(round);
      awaited += commits;
      return commits;
    },
    jitterMs: 5,
  });
  // Each writer reported its commits before its kill, so at least these were acknowledged.
  expect(awaited).toBeGreaterThanOrEqual((KILLS / 2) * COMMITS_PER_CHECKPOINT);
  expect(acknowledged).toBeGreaterThanOrEqual(awaited);
  // A hang guard, not a speed check: a FULL commit waits for an fsync, which a loaded CI disk
  // was seen to make take over 10 s a writer (12 kills did not finish in 120 s).
}, 60_000 + KILLS * 30_000);
