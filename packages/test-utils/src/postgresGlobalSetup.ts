import { POSTGRES_URL_VARIABLE, postgresServer } from './startEmbeddedPostgres.js';

/** The key under which the global setup provides the server's URL to test files (`inject`). */
export const POSTGRES_URL_KEY = 'roundtablePostgresUrl';
/** Also set in the environment, for tools that read it (child processes get it as an argument). */
export const TEST_POSTGRES_URL_VARIABLE = 'ROUNDTABLE_TEST_POSTGRES_URL';

interface ProvidingProject {
  provide(key: string, value: unknown): void;
}

/**
 * A vitest `globalSetup`: uses `ROUNDTABLE_POSTGRES_URL` when set, otherwise starts an embedded
 * PostgreSQL for the whole test run and stops it when the run ends. Test files read the URL
 * with `inject('roundtablePostgresUrl')` and make a database of their own with `createTestDatabase`.
 */
export async function setupPostgres(project: ProvidingProject): Promise<() => Promise<void>> {
  const server = await postgresServer();
  project.provide(POSTGRES_URL_KEY, server.url);
  process.env[TEST_POSTGRES_URL_VARIABLE] = server.url;
  if (!server.embedded) process.env[POSTGRES_URL_VARIABLE] = server.url;
  return () => server.stop();
}
