import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { packageFixtures, tempDirectory } from '@roundtable/test-utils';
import { childProcessSuite } from '@roundtable/test-utils/harness';

export { exited, messageOfType, newBatch, newEvent, nextMessage, readAll, rejection, tempDirectory } from '@roundtable/test-utils';

/**
 * The busy timeout of every connection in the crash and race tests. Their writers commit back to
 * back, and SQLite's lock is not queued (a waiter polls, at most every 100 ms), so on a loaded
 * machine a connection can wait past the default 5 s: here the timeout is only a hang guard.
 * The child fixtures take it as their last argument.
 */
export const CONTENDED_BUSY_TIMEOUT_MS = 120_000;

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Child-process fixtures import the built package: `assertFreshBuild` refuses a missing or stale build. */
export const { assertFreshBuild, forkFixture } = packageFixtures(fileURLToPath(new URL('../..', import.meta.url)), 'storage-sqlite');

/**
 * The hooks of a child-process test file: the build is checked once, each test gets a fresh
 * directory, and after each test every child still running is killed and the directory removed.
 */
export function childProcessScratch(): { readonly children: ChildProcess[]; readonly directory: () => string } {
  const suite = childProcessSuite({ assertFreshBuild, setUp: () => tempDirectory(), tearDown: (scratch) => scratch.cleanup(), perTest: true });
  return { children: suite.children, directory: () => suite.current().directory };
}
