import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { packageFixtures, tempDirectory } from '@roundtable/test-utils';
import { childProcessSuite } from '@roundtable/test-utils/harness';

export { exited, messageOfType, newBatch, newEvent, nextMessage, readAll, rejection, tempDirectory } from '@roundtable/test-utils';

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
