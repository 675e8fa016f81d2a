import { fileURLToPath } from 'node:url';
import { packageFixtures } from '@roundtable/test-utils';
import { childProcessDatabase as sharedChildProcessDatabase, postgresTestDatabase } from '@roundtable/test-utils/harness';
import type { TestDatabase } from '@roundtable/test-utils';

export { FULL, exited, newBatch, newEvent, nextMessage, readAll, rejection } from '@roundtable/test-utils';
export { rawPostgresClient as rawClient } from '@roundtable/test-utils/harness';

/** A database of this test file's own. */
export function testDatabase(prefix = 'storage_pg'): Promise<TestDatabase> {
  return postgresTestDatabase(prefix);
}

/** Child-process fixtures import the built package: `assertFreshBuild` refuses a missing or stale build. */
export const { assertFreshBuild, forkFixture } = packageFixtures(fileURLToPath(new URL('..', import.meta.url)), 'storage-postgres');

/** The hooks of a child-process test file: the build checked, a database for the file, every child still running killed after each test. */
export const childProcessDatabase = (prefix: string) => sharedChildProcessDatabase(assertFreshBuild, prefix);
