import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database of its own on a test server, so test files can run in parallel. */
export interface TestDatabase {
  readonly name: string;
  /** The server's URL with this database in its path. */
  readonly url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates a database named `<prefix>_<random>` on the server at `serverUrl`. */
export async function createTestDatabase(serverUrl: string, prefix = 'roundtable_test'): Promise<TestDatabase> {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) throw new Error(`database prefix ${JSON.stringify(prefix)} must be a lower-case identifier of at most 41 characters`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  let dropped = false;
  return {
    name,
    url: withDatabase(serverUrl, name),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
