// What a PostgreSQL test file needs, given the global setup (`setupPostgres`) ran.
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { inject } from 'vitest';
import { childProcessSuite } from './childProcessSuite.js';
import { POSTGRES_URL_KEY } from './postgresGlobalSetup.js';
import { createTestDatabase } from './testDatabase.js';
import type { TestDatabase } from './testDatabase.js';

declare module 'vitest' {
  export interface ProvidedContext {
    [POSTGRES_URL_KEY]: string;
  }
}

/** The test server's URL (provided by the global setup). */
export function postgresTestUrl(): string {
  return inject(POSTGRES_URL_KEY);
}

/** A database of this test file's own on the test server, named `<prefix>_<random>`. */
export function postgresTestDatabase(prefix: string): Promise<TestDatabase> {
  return createTestDatabase(postgresTestUrl(), prefix);
}

/** A plain pg client, connected, for looking at (and damaging) the tables directly; the caller ends it. */
export async function rawPostgresClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/**
 * The hooks of a PostgreSQL child-process test file: the build checked, a database of the
 * file's own (`<prefix>_<random>`, dropped at the end), every child still running killed after each test.
 */
export function childProcessDatabase(assertFreshBuild: () => void, prefix: string): { readonly children: ChildProcess[]; readonly database: () => TestDatabase } {
  const suite = childProcessSuite({ assertFreshBuild, setUp: () => postgresTestDatabase(prefix), tearDown: (database) => database.drop(), perTest: false });
  return { children: suite.children, database: suite.current };
}
