export { freePort } from './freePort.js';
export { POSTGRES_URL_VARIABLE, postgresServer, startEmbeddedPostgres } from './startEmbeddedPostgres.js';
export type { EmbeddedPostgresOptions, PostgresServer } from './startEmbeddedPostgres.js';
export { createTestDatabase } from './testDatabase.js';
export type { TestDatabase } from './testDatabase.js';
export { POSTGRES_URL_KEY, TEST_POSTGRES_URL_VARIABLE, setupPostgres } from './postgresGlobalSetup.js';
export { FULL, assertFreshBuild, exited, forkFixture, nextMessage, rejection } from './childProcessFixtures.js';
