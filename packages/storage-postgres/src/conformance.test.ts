import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStorageConformance } from '@roundtable/storage/conformance';
import type { TestDatabase } from '@roundtable/test-utils';
import { createPostgresStorage } from './index.js';
import { testDatabase } from '../test/__fixtures__/helpers.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await testDatabase('conformance');
});
afterAll(() => database.drop());

describe('the storage conformance kit', () => {
  it('passes with the storage making its own pool (every instance over one schema)', async () => {
    const result = await runStorageConformance({
      name: '@roundtable/storage-postgres',
      create: (options) => createPostgresStorage({ ...options, connectionString: database.url }),
    });
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.cases.length).toBeGreaterThan(10);
  });

  it("passes over a caller's pool, which close() leaves open", async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 20 });
    try {
      const result = await runStorageConformance({
        name: '@roundtable/storage-postgres (caller pool)',
        create: (options) => createPostgresStorage({ ...options, pool, schema: 'caller_pool' }),
      });
      expect(result.failures).toEqual([]);
      expect(result.ok).toBe(true);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
