import { createHash } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '@roundtable/core';
import { isStorageError } from '@roundtable/storage';
import type { StorageErrorCode } from '@roundtable/storage';
import { freePort, postgresCatalog, probeReadOnly } from '@roundtable/test-utils';
import type { TestDatabase } from '@roundtable/test-utils';
import { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_SCHEMA, POSTGRES_SCHEMA_VERSION, changeChannel, createPostgresStorage } from './index.js';
import type { PostgresStorage, PostgresStorageOptions } from './index.js';
import packageJson from '../package.json' with { type: 'json' };
import { newBatch, newEvent, rawClient, readAll, rejection, settledConnections, testDatabase } from '../test/__fixtures__/helpers.js';

let database: TestDatabase;
let raw: pg.Client;
const open: PostgresStorage[] = [];
let schemaCount = 0;

beforeAll(async () => {
  database = await testDatabase('storage');
  raw = await rawClient(database.url);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((storage) => storage.close()));
});
afterAll(async () => {
  await raw.end();
  await database.drop();
});

/** A schema no other test uses. */
function freshSchema(): string {
  return `t${++schemaCount}_${process.pid}`;
}

function storageWith(options: Partial<PostgresStorageOptions> = {}): PostgresStorage {
  const storage = createPostgresStorage({ connectionString: database.url, ...options });
  open.push(storage);
  return storage;
}

function codeOf(error: unknown): string | undefined {
  return isStorageError(error) ? error.code : undefined;
}

describe('createPostgresStorage options', () => {
  const invalid: [string, unknown][] = [
    ['no options', undefined],
    ['both a connection string and a pool', { connectionString: 'postgres://x/y', pool: new pg.Pool() }],
    ['an empty connection string', { connectionString: ' ' }],
    ['a connection string that is not a string', { connectionString: 42 }],
    ['a pool that is not a pool', { pool: {} }],
    ['an upper-case schema', { connectionString: 'postgres://x/y', schema: 'Runs' }],
    ['a schema that needs quoting', { connectionString: 'postgres://x/y', schema: 'a"; DROP TABLE x; --' }],
    ['an overlong schema', { connectionString: 'postgres://x/y', schema: 'a'.repeat(41) }],
    ['a zero lock timeout', { connectionString: 'postgres://x/y', lockTimeoutMs: 0 }],
    ['a fractional lock timeout', { connectionString: 'postgres://x/y', lockTimeoutMs: 1.5 }],
    ['a zero pool size', { connectionString: 'postgres://x/y', maxConnections: 0 }],
    ['an invalid namespace', { connectionString: 'postgres://x/y', namespace: '../up' }],
    ['an invalid limit', { connectionString: 'postgres://x/y', limits: { maxEventPayloadBytes: 0 } }],
    ['invalid known secrets', { connectionString: 'postgres://x/y', knownSecrets: [''] }],
  ];
  it.each(invalid)('refuses %s with INVALID_STORAGE_OPTIONS', (_, options) => {
    let thrown: unknown;
    try {
      createPostgresStorage(options as PostgresStorageOptions);
    } catch (error) {
      thrown = error;
    }
    expect(codeOf(thrown)).toBe('INVALID_STORAGE_OPTIONS');
  });

  it('reports host, port, database and schema as its location, never the user or password', () => {
    const url = new URL(database.url);
    const storage = storageWith({ namespace: 'team-a' });
    expect(storage.identity).toEqual({
      adapter: '@roundtable/storage-postgres',
      version: packageJson.version,
      namespace: 'team-a',
      location: `postgres://127.0.0.1:${url.port}/${database.name}?schema=${DEFAULT_SCHEMA}`,
    });
    expect(storage.identity.location).not.toContain(decodeURIComponent(url.password));
    expect(storage.identity.location).not.toContain(`${url.username}@`);
    const pool = new pg.Pool({ host: '127.0.0.1', port: Number(url.port), database: database.name, user: 'someone', password: 'not-in-the-location' });
    const overPool = createPostgresStorage({ pool, schema: 'other' });
    expect(overPool.identity.location).toBe(`postgres://127.0.0.1:${url.port}/${database.name}?schema=other`);
    expect(storageWith().identity.namespace).toBe('default');
    expect(DEFAULT_LOCK_TIMEOUT_MS).toBe(5000);
    return pool.end();
  });

  it('never quotes a connection string it cannot parse', () => {
    let thrown: unknown;
    try {
      createPostgresStorage({ connectionString: 'postgres://user:s3cret-password@[bad/db' });
    } catch (error) {
      thrown = error;
    }
    expect(codeOf(thrown)).toBe('INVALID_STORAGE_OPTIONS');
    expect(String((thrown as Error).message)).not.toContain('s3cret');
  });
});

describe('the stored form', () => {
  it('keeps each event as its canonical JSON text with a SHA-256, in text columns (not jsonb)', async () => {
    const schema = freshSchema();
    const storage = storageWith({ schema });
    const payload = { z: 1, a: { y: [1, 'two', null], b: -0 }, text: 'héllo ✓ "quoted"\n' };
    await storage.append('stored-form', 0, [newEvent('e1', payload)]);
    const [event] = await readAll(storage, 'stored-form');
    const { rows } = await raw.query<{ body: string; checksum: string }>(`SELECT body, checksum FROM ${schema}.events`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.body).toBe(canonicalJson(event!));
    expect(rows[0]!.body).toContain('"payload":{"a":{"b":0,"y":[1,"two",null]},"text":"héllo ✓ \\"quoted\\"\\n","z":1}');
    expect(rows[0]!.checksum).toBe(createHash('sha256').update(rows[0]!.body, 'utf8').digest('hex'));
    const columns = await raw.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' ORDER BY ordinal_position`,
      [schema],
    );
    expect(Object.fromEntries(columns.rows.map((row) => [row.column_name, row.data_type]))).toEqual({
      namespace: 'text',
      stream_id: 'text',
      revision: 'bigint',
      event_id: 'text',
      body: 'text',
      checksum: 'text',
    });
  });

  it('pages through long streams and reads from any revision', async () => {
    const storage = storageWith({ schema: freshSchema() });
    let head = 0;
    for (let batch = 0; batch < 7; batch++) head = await storage.append('long', head, newBatch(`b${batch}`, 100));
    expect(head).toBe(700);
    const all = await readAll(storage, 'long');
    expect(all.map((event) => event.revision)).toEqual(Array.from({ length: 700 }, (_, i) => i + 1));
    const tail = await readAll(storage, 'long', 555);
    expect(tail.map((event) => event.revision)).toEqual(Array.from({ length: 145 }, (_, i) => i + 556));
    expect(await readAll(storage, 'long', 700)).toEqual([]);
    expect(await readAll(storage, 'long', 900)).toEqual([]);
  });

  it('reports a repeated event id from the unique constraint, naming the event, and writes nothing', async () => {
    const schema = freshSchema();
    const storage = storageWith({ schema });
    await storage.append('dup', 0, [newEvent('one'), newEvent('two')]);
    const error = await rejection(storage.append('dup', 2, [newEvent('three'), newEvent('two'), newEvent('four')]));
    expect(codeOf(error)).toBe('DUPLICATE_EVENT_ID');
    expect((error as { details?: unknown }).details).toEqual({ eventId: 'two', streamId: 'dup' });
    expect(await storage.head('dup')).toBe(2);
    const { rows } = await raw.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.events`);
    expect(rows[0]!.n).toBe(2);
  });
});

describe('damaged rows fail closed', () => {
  async function damagedStream(alter: (schema: string) => string): Promise<unknown> {
    const schema = freshSchema();
    const storage = storageWith({ schema });
    await storage.append('damaged', 0, newBatch('d', 3));
    await raw.query(alter(schema));
    const reopened = storageWith({ schema });
    return rejection(readAll(reopened, 'damaged'));
  }

  it.each([
    ['altered payload text', (s: string) => `UPDATE ${s}.events SET body = replace(body, '"d-2"}', '"d-X"}') WHERE revision = 2`],
    ['an altered checksum', (s: string) => `UPDATE ${s}.events SET checksum = md5(checksum) || md5(checksum) WHERE revision = 2`],
    ['a body and checksum that agree but name another revision', (s: string) => `UPDATE ${s}.events SET body = replace(body, '"revision":2', '"revision":5'), checksum = encode(sha256(convert_to(replace(body, '"revision":2', '"revision":5'), 'UTF8')), 'hex') WHERE revision = 2`],
    ['a body that is not JSON', (s: string) => `UPDATE ${s}.events SET body = 'not json', checksum = encode(sha256(convert_to('not json', 'UTF8')), 'hex') WHERE revision = 2`],
    ['a missing row', (s: string) => `DELETE FROM ${s}.events WHERE revision = 2`],
    ['a row under another event id', (s: string) => `UPDATE ${s}.events SET event_id = 'elsewhere' WHERE revision = 3`],
    ['a head past the last row', (s: string) => `UPDATE ${s}.streams SET head = 4`],
  ])('%s reads as CORRUPT_EVENT_STREAM', async (_, alter) => {
    const error = await damagedStream(alter);
    expect(codeOf(error)).toBe('CORRUPT_EVENT_STREAM');
    expect((error as { details?: unknown }).details).toEqual({ streamId: 'damaged' });
  });

  it('an unknown envelope version reads as UNSUPPORTED_ENVELOPE_VERSION', async () => {
    const error = await damagedStream(
      (s) =>
        `UPDATE ${s}.events SET body = replace(body, '"envelopeVersion":1', '"envelopeVersion":2'), checksum = encode(sha256(convert_to(replace(body, '"envelopeVersion":1', '"envelopeVersion":2'), 'UTF8')), 'hex') WHERE revision = 1`,
    );
    expect(codeOf(error)).toBe('UNSUPPORTED_ENVELOPE_VERSION');
  });

  it('a malformed streams entry fails streams() closed', async () => {
    const schema = freshSchema();
    const storage = storageWith({ schema });
    await storage.append('fine', 0, newBatch('f', 1));
    await raw.query(`INSERT INTO ${schema}.streams (namespace, stream_id, head) VALUES ('default', '../bad', 1)`);
    const error = await rejection((async () => {
      for await (const _ of storage.streams()) void _;
    })());
    expect(codeOf(error)).toBe('CORRUPT_EVENT_STREAM');
  });
});

describe('schema versions and migrations', () => {
  it('records version 1 once, even when many instances start on a fresh schema at the same moment', async () => {
    const schema = freshSchema();
    const storages = Array.from({ length: 8 }, () => storageWith({ schema }));
    await Promise.all(storages.map((storage) => storage.ready()));
    await Promise.all(storages.map((storage, i) => storage.append(`s${i}`, 0, [newEvent(`e${i}`)])));
    const { rows } = await raw.query<{ version: number }>(`SELECT version FROM ${schema}.roundtable_migrations`);
    expect(rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
  });

  it('refuses a schema that a newer version wrote, and changes nothing in it', async () => {
    const schema = freshSchema();
    const first = storageWith({ schema });
    await first.append('kept', 0, [newEvent('k')]);
    await raw.query(`INSERT INTO ${schema}.roundtable_migrations (version) VALUES (${POSTGRES_SCHEMA_VERSION + 1})`);
    const newer = storageWith({ schema });
    for (const action of [() => newer.ready(), () => newer.head('kept'), () => newer.append('other', 0, [newEvent('o')])]) {
      const error = await rejection(action());
      expect(codeOf(error)).toBe('UNSUPPORTED_SCHEMA_VERSION');
      expect((error as { details?: unknown }).details).toEqual({ schemaVersion: POSTGRES_SCHEMA_VERSION + 1, supportedSchemaVersion: POSTGRES_SCHEMA_VERSION, location: newer.identity.location });
    }
    const { rows } = await raw.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.streams`);
    expect(rows[0]!.n).toBe(1);
  });

  it('waits for the migration lock at most lockTimeoutMs, then STORAGE_BUSY, and works once the lock is free', async () => {
    const schema = freshSchema();
    const holder = await rawClient(database.url);
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1::int4, hashtext($2))', [0x52544d47, schema]);
      const storage = storageWith({ schema, lockTimeoutMs: 150 });
      const error = await rejection(storage.head('x'));
      expect(codeOf(error)).toBe('STORAGE_BUSY');
      expect((error as { details?: unknown }).details).toMatchObject({ lockTimeoutMs: 150, sqlState: '55P03' });
      await holder.query('COMMIT');
      expect(await storage.head('x')).toBe(0);
    } finally {
      await holder.end();
    }
  });
});

describe('lock and server failures are typed', () => {
  it.each([
    ['its own pool', false],
    ["a caller's pool", true],
  ])('an append that waits past lockTimeoutMs on %s is STORAGE_BUSY and writes nothing', async (_, callerPool) => {
    const schema = freshSchema();
    const pool = callerPool ? new pg.Pool({ connectionString: database.url }) : undefined;
    try {
      const storage = pool === undefined ? storageWith({ schema, lockTimeoutMs: 150 }) : storageWith({ connectionString: undefined, pool, schema, lockTimeoutMs: 150 });
      await storage.append('locked', 0, [newEvent('a')]);
      const holder = await rawClient(database.url);
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT head FROM ${schema}.streams WHERE stream_id = 'locked' FOR UPDATE`);
        const error = await rejection(storage.append('locked', 1, [newEvent('b')]));
        expect(codeOf(error)).toBe('STORAGE_BUSY');
        await holder.query('ROLLBACK');
      } finally {
        await holder.end();
      }
      expect(await storage.head('locked')).toBe(1);
      expect(await storage.append('locked', 1, [newEvent('b')])).toBe(2);
      if (pool !== undefined) {
        // The caller's sessions keep their own lock_timeout.
        const { rows } = await pool.query<{ lock_timeout: string }>('SHOW lock_timeout');
        expect(rows[0]!.lock_timeout).toBe('0');
      }
    } finally {
      await pool?.end();
    }
  });

  it('a server that is not there is STORAGE_IO_ERROR, and so is a refused login, without the password', async () => {
    const port = await freePort();
    const nowhere = storageWith({ connectionString: `postgres://postgres:hidden-password@127.0.0.1:${port}/postgres` });
    const refused = await rejection(nowhere.head('x'));
    expect(codeOf(refused)).toBe('STORAGE_IO_ERROR');
    expect((refused as { details?: { systemCode?: unknown } }).details?.systemCode).toBe('ECONNREFUSED');
    const url = new URL(database.url);
    url.password = 'wrong-password-123';
    const wrong = storageWith({ connectionString: url.toString() });
    const denied = await rejection(wrong.append('x', 0, [newEvent('x')]));
    expect(codeOf(denied)).toBe('STORAGE_IO_ERROR');
    expect((denied as { details?: { systemCode?: unknown } }).details?.systemCode).toBe('28P01');
    expect(JSON.stringify({ message: (denied as Error).message, details: (denied as { details?: unknown }).details })).not.toContain('wrong-password-123');
  });

  it('a connection the server ends mid-use is STORAGE_IO_ERROR, and the next call reconnects', async () => {
    const storage = storageWith({ schema: freshSchema() });
    await storage.append('cut', 0, [newEvent('a')]);
    await raw.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'roundtable-storage'`, [database.name]);
    // The pool may notice the dead connection only when it uses it: at most one call fails, typed.
    let failures = 0;
    for (let i = 0; i < 3; i++) {
      try {
        await storage.head('cut');
      } catch (error) {
        expect(codeOf(error)).toBe('STORAGE_IO_ERROR');
        failures++;
      }
    }
    expect(failures).toBeLessThanOrEqual(1);
    expect(await storage.append('cut', 1, [newEvent('b')])).toBe(2);
  });
});

describe('close()', () => {
  it('ends the pool it made; afterwards every method is STORAGE_CLOSED', async () => {
    const storage = createPostgresStorage({ connectionString: database.url, schema: freshSchema() });
    await storage.append('c', 0, [newEvent('c')]);
    await storage.close();
    await storage.close();
    expect(await settledConnections(raw, database.name, 'roundtable-storage', 0)).toEqual([]);
    for (const action of [() => storage.head('c'), () => storage.append('c', 1, [newEvent('d')]), () => readAll(storage, 'c'), () => storage.ready()]) {
      expect(codeOf(await rejection((async () => action())()))).toBe('STORAGE_CLOSED');
    }
  });
});

describe('NOTIFY on commit', () => {
  async function listen(schema: string) {
    const listener = await rawClient(database.url);
    const payloads: string[] = [];
    let onPayload = () => {};
    listener.on('notification', (message) => {
      payloads.push(message.payload ?? '');
      onPayload();
    });
    await listener.query(`LISTEN "${changeChannel(schema)}"`);
    /** Sends a marker after everything committed so far and waits for it: notifications arrive in commit order. */
    const settled = async () => {
      const marker = `marker-${payloads.length}`;
      const arrived = new Promise<void>((resolve) => (onPayload = () => payloads.includes(marker) && resolve()));
      await raw.query('SELECT pg_notify($1, $2)', [changeChannel(schema), marker]);
      await arrived;
      payloads.splice(payloads.indexOf(marker), 1);
    };
    return { payloads, settled, stop: () => listener.end() };
  }

  it('announces each committed append once, and nothing for a refused one', async () => {
    const schema = freshSchema();
    const { payloads, settled, stop } = await listen(schema);
    try {
      const storage = storageWith({ schema, namespace: 'ns1' });
      await storage.append('told', 0, newBatch('t', 3));
      await rejection(storage.append('told', 0, [newEvent('late')]));
      await rejection(storage.append('told', 3, [newEvent('t-1')]));
      expect(await storage.append('told', 0, newBatch('t', 3))).toBe(3);
      await storage.append('told', 3, [newEvent('more')]);
      await settled();
      expect(payloads).toEqual(['ns1\ntold', 'ns1\ntold']);
    } finally {
      await stop();
    }
  });
});

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
          const probe = await probeReadOnly(() => createPostgresStorage({ ...(overPool ? { pool } : { connectionString: database.url }), schema, namespace, readOnly: true }));
          for (const error of probe.errors) expect(isStorageError(error), String(error)).toBe(true);
          expect(isStorageError(probe.appendError, 'STORAGE_READ_ONLY'), String(probe.appendError)).toBe(true);
          expect(await catalog()).toEqual(before);
        },
      ),
      { numRuns: 30, seed: 22 },
    ).finally(() => pool.end());
  });
});
