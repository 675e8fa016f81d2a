import type pg from 'pg';
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
export const { assertFreshBuild, forkFixture } = packageFixtures(fileURLToPath(new URL('../..', import.meta.url)), 'storage-postgres');

/** The hooks of a child-process test file: the build checked, a database for the file, every child still running killed after each test. */
export const childProcessDatabase = (prefix: string) => sharedChildProcessDatabase(assertFreshBuild, prefix);

/**
 * The server's backends of `applicationName` in `database`, once the count has settled on
 * `expected` or 10 s have passed (a client's `end()` returns before the server's backend has
 * left `pg_stat_activity`). A hang guard, not a timing assertion: the caller asserts the count.
 */
export async function settledConnections(raw: pg.Client, database: string, applicationName: string, expected: number): Promise<number[]> {
  for (let waited = 0; ; waited += 20) {
    const { rows } = await raw.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`, [database, applicationName]);
    if (rows.length === expected || waited >= 10_000) return rows.map((row) => row.pid);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
