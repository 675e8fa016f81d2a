// What a PostgreSQL test file needs, given the global setup (`setupPostgres`) ran.
import pg from 'pg';
import { inject } from 'vitest';
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
