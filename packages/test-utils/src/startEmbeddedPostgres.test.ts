import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, freePort, startEmbeddedPostgres } from './index.js';

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('startEmbeddedPostgres', () => {
  it('starts a real PostgreSQL on a loopback port, gives each caller a database of its own, and stops', async () => {
    const server = await startEmbeddedPostgres();
    try {
      expect(server.embedded).toBe(true);
      const url = new URL(server.url);
      expect(url.hostname).toBe('127.0.0.1');
      const [version] = await query<{ server_version_num: string }>(server.url, 'SHOW server_version_num');
      expect(Number(version!.server_version_num)).toBeGreaterThanOrEqual(180000);
      const [encoding] = await query<{ server_encoding: string }>(server.url, 'SHOW server_encoding');
      expect(encoding!.server_encoding).toBe('UTF8');

      const first = await createTestDatabase(server.url, 'first');
      const second = await createTestDatabase(server.url, 'second');
      expect(first.name).not.toBe(second.name);
      await query(first.url, 'CREATE TABLE only_in_first (x int)');
      const tables = async (db: string) => (await query<{ n: string }>(db, "SELECT count(*)::text AS n FROM pg_tables WHERE tablename = 'only_in_first'"))[0]!.n;
      expect(await tables(first.url)).toBe('1');
      expect(await tables(second.url)).toBe('0');
      await first.drop();
      await second.drop();
      const names = await query<{ datname: string }>(server.url, 'SELECT datname FROM pg_database');
      expect(names.map((row) => row.datname)).not.toContain(first.name);
    } finally {
      await server.stop();
    }
    await expect(query(server.url, 'SELECT 1')).rejects.toThrow();
  });

  it('finds a free port', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65536);
  });

  it('refuses a database prefix that is not a plain identifier', async () => {
    await expect(createTestDatabase('postgres://127.0.0.1:1/postgres', 'Bad"Name')).rejects.toThrow(/identifier/);
  });
});
