import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { packageFixtures } from '@roundtable/test-utils';

export { exited, killAll, messageOfType, newBatch, newEvent, nextMessage, readAll, rejection, tempDirectory } from '@roundtable/test-utils';

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Child-process fixtures import the built package: `assertFreshBuild` refuses a missing or stale build. */
export const { assertFreshBuild, forkFixture } = packageFixtures(fileURLToPath(new URL('..', import.meta.url)), 'storage-sqlite');
