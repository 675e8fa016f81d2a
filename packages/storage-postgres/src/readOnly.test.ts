import fc from 'fast-check';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isStorageError } from '@roundtable/storage';
import type { StorageErrorCode } from '@roundtable/storage';
import { postgresCatalog } from '@roundtable/test-utils';
import type { TestDatabase } from '@roundtable/test-utils';
import { POSTGRES_SCHEMA_VERSION, createPostgresStorage } from './index.js';
import type { PostgresStorage, PostgresStorageOptions } from './index.js';
import { newBatch, rawClient, readAll, rejection, testDatabase } from '../test/helpers.js';

let database: TestDatabase;
let raw: pg.Client;
const open: PostgresStorage[] = [];
let schemaCount = 0;

beforeAll(async () => {
  database = await testDatabase('read_only');
  raw = await rawClient(database.url);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((storage) => storage.close()));
});
afterAll(async () => {
  await raw.end();
  await database.drop();
});

function freshSchema(): string {
  return `ro${++schemaCount}_${process.pid}`;
}

function storageWith(options: Partial<PostgresStorageOptions> = {}): PostgresStorage {
  const storage = createPostgresStorage({ connectionString: database.url, ...options });
  open.push(storage);
  return storage;
}

const catalog = () => postgresCatalog(database.url);

/** Every method of a read-only instance over `schema` fails with `code`, and the database is as it was; returns the message. */
async function expectRefusedUnchanged(schema: string, code: StorageErrorCode = 'NOT_A_STORE'): Promise<string> {
  const before = await catalog();
  const storage = storageWith({ schema, readOnly: true });
  let message = '';
  for (const action of [() => storage.ready(), () => storage.head('run-1'), () => readAll(storage, 'run-1')]) {
    const error = await rejection(action());
    expect(isStorageError(error, code), String(error)).toBe(true);
    message = (error as Error).message;
  }
  expect(isStorageError(await rejection(storage.append('run-1', 0, newBatch('x', 1))), 'STORAGE_READ_ONLY')).toBe(true);
  expect(await catalog()).toEqual(before);
  return message;
}

describe('createPostgresStorage({ readOnly: true }) over a database or schema that is not a store', () => {
  it('is NOT_A_STORE naming what is there, and creates or changes nothing', async () => {
    const missing = freshSchema();
    const message = await expectRefusedUnchanged(missing);
    expect(message).toContain(`?schema=${missing} is not a Roundtable store: the database has no schema "${missing}" (it has the schemas "public"`);
    expect(message).toContain('nothing was created or changed');

    const app = freshSchema();
    await raw.query(`CREATE SCHEMA ${app}; CREATE TABLE ${app}.users (id int); CREATE TABLE ${app}.orders (id int); INSERT INTO ${app}.users VALUES (1)`);
    expect(await expectRefusedUnchanged(app)).toContain(`schema "${app}" has the tables "orders", "users", without roundtable_migrations`);

    const empty = freshSchema();
    await raw.query(`CREATE SCHEMA ${empty}`);
    expect(await expectRefusedUnchanged(empty)).toContain(`schema "${empty}" has no tables, without roundtable_migrations`);
  });

  it('refuses a schema older or newer than this code without migrating it', async () => {
    const older = freshSchema();
    await raw.query(`CREATE SCHEMA ${older}; CREATE TABLE ${older}.roundtable_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    expect(await expectRefusedUnchanged(older, 'UNSUPPORTED_SCHEMA_VERSION')).toMatch(/schema version 0, older than .* a read-only open never migrates/);

    const newer = freshSchema();
    await storageWith({ schema: newer }).append('kept', 0, newBatch('k', 1));
    await raw.query(`INSERT INTO ${newer}.roundtable_migrations (version) VALUES (${POSTGRES_SCHEMA_VERSION + 1})`);
    expect(await expectRefusedUnchanged(newer, 'UNSUPPORTED_SCHEMA_VERSION')).toContain(`schema version ${POSTGRES_SCHEMA_VERSION + 1}, newer than`);
  });
});

describe('createPostgresStorage({ readOnly: true }) over a store', () => {
  it('reads (own pool and a caller\'s), reads a missing namespace as empty, refuses appends, and changes nothing', async () => {
    const schema = freshSchema();
    const writer = storageWith({ schema });
    await writer.append('run-1', 0, newBatch('a', 2));
    await writer.append('run-2', 0, newBatch('b', 1));
    const before = await catalog();
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      const overPool = createPostgresStorage({ pool, schema, readOnly: true });
      open.push(overPool);
      for (const reader of [storageWith({ schema, readOnly: true }), overPool]) {
        await reader.ready();
        expect((await readAll(reader, 'run-1')).map((event) => event.eventId)).toEqual(['a-1', 'a-2']);
        const listed: unknown[] = [];
        for await (const entry of reader.streams()) listed.push(entry);
        expect(listed).toEqual([{ streamId: 'run-1', head: 2 }, { streamId: 'run-2', head: 1 }]);
        expect(isStorageError(await rejection(reader.append('run-1', 2, newBatch('x', 1))), 'STORAGE_READ_ONLY')).toBe(true);
      }
      const nobody = storageWith({ schema, namespace: 'Default', readOnly: true });
      expect(await nobody.head('run-1')).toBe(0);
      expect(await catalog()).toEqual(before);
      // And it reads what a writer appends after it opened.
      await writer.append('run-1', 2, newBatch('c', 1));
      expect(await storageWith({ schema, readOnly: true }).head('run-1')).toBe(3);
    } finally {
      await pool.end();
    }
  });
});

describe('createPostgresStorage({ readOnly: true }) over random schemas', () => {
  it('fails typed or reads clean, refuses appends, and never changes the catalog or a row, over its own pool or a caller\'s', async () => {
    const tableNames = ['roundtable_migrations', 'streams', 'events', 'users', 'notes'];
    // A caller's pool has no server-side read-only default: there only the adapter keeps it from writing.
    const pool = new pg.Pool({ connectionString: database.url });
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.uniqueArray(fc.constantFrom(...tableNames), { maxLength: 4 }),
        fc.integer({ min: 0, max: POSTGRES_SCHEMA_VERSION + 1 }),
        fc.constantFrom('default', 'Default'),
        fc.boolean(),
        async (createSchema, tables, version, namespace, overPool) => {
          const schema = freshSchema();
          if (createSchema) {
            await raw.query(`CREATE SCHEMA ${schema}`);
            for (const table of tables) {
              if (table === 'roundtable_migrations') {
                await raw.query(`CREATE TABLE ${schema}.roundtable_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
                if (version > 0) await raw.query(`INSERT INTO ${schema}.roundtable_migrations (version) VALUES (${version})`);
              } else await raw.query(`CREATE TABLE ${schema}.${table} (a text, b int)`);
            }
          }
          const before = await catalog();
          const storage = overPool ? createPostgresStorage({ pool, schema, namespace, readOnly: true }) : storageWith({ schema, namespace, readOnly: true });
          for (const action of [() => storage.head('run-1'), () => readAll(storage, 'run-1')]) {
            await action().catch((error: unknown) => expect(isStorageError(error), String(error)).toBe(true));
          }
          expect(isStorageError(await rejection(storage.append('run-1', 0, newBatch('x', 1))), 'STORAGE_READ_ONLY')).toBe(true);
          await storage.close();
          expect(await catalog()).toEqual(before);
        },
      ),
      { numRuns: 30, seed: 22 },
    ).finally(() => pool.end());
  });
});
