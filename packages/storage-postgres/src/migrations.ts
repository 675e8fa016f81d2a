import type pg from 'pg';
import { latestSchemaVersion, notAStore, pendingMigrations, quotedNames, requireCurrentSchema } from '@roundtable/storage/adapter';
import type { SchemaMigration } from '@roundtable/storage/adapter';

/**
 * The schema, one step per version; in each step's statements `$schema` stands for the quoted
 * schema name. A step is never edited once released: a change is a new
 * step. `body` is the stored event's canonical JSON exactly as `prepareAppend` produced it
 * (text, not jsonb, which would reorder keys and drop the bytes the checksum covers) and
 * `checksum` the SHA-256 (hex) of its UTF-8 bytes. `streams.head` is what appends update
 * conditionally; `append` keeps it equal to the stream's last revision. Text columns use the
 * "C" collation so `streams()` orders ids by byte, the same on every server.
 */
export const MIGRATIONS: readonly SchemaMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE $schema.streams (
        namespace text COLLATE "C" NOT NULL,
        stream_id text COLLATE "C" NOT NULL,
        head bigint NOT NULL CHECK (head > 0),
        PRIMARY KEY (namespace, stream_id)
      );
      CREATE TABLE $schema.events (
        namespace text COLLATE "C" NOT NULL,
        stream_id text COLLATE "C" NOT NULL,
        revision bigint NOT NULL CHECK (revision > 0),
        event_id text COLLATE "C" NOT NULL,
        body text NOT NULL,
        checksum text NOT NULL,
        CONSTRAINT events_pkey PRIMARY KEY (namespace, stream_id, revision),
        CONSTRAINT events_event_id_key UNIQUE (namespace, stream_id, event_id)
      );
    `,
  },
];

/** The schema version this code writes; a schema at a newer version is refused. */
export const POSTGRES_SCHEMA_VERSION = latestSchemaVersion(MIGRATIONS);

export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The advisory-lock key of one schema's migrations: two int4 halves, a fixed class and the schema's hash. */
const MIGRATION_LOCK_CLASS = 0x52544d47; // 'RTMG'

async function readSchemaVersion(client: pg.ClientBase, schema: string): Promise<number> {
  const table = await client.query<{ exists: boolean }>(
    `SELECT to_regclass($1) IS NOT NULL AS exists`,
    [`${quoteIdentifier(schema)}.roundtable_migrations`],
  );
  if (table.rows[0]?.exists !== true) return 0;
  const row = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${quoteIdentifier(schema)}.roundtable_migrations`);
  return row.rows[0]?.version ?? 0;
}

const ADAPTER = '@roundtable/storage-postgres';

/**
 * Brings the schema to POSTGRES_SCHEMA_VERSION. A schema already at this version is only read.
 * Otherwise one transaction takes a transaction-scoped advisory lock for the schema (waiting at
 * most `lockTimeoutMs`, then STORAGE_BUSY), re-reads the version and applies the missing steps,
 * so of many processes starting at once exactly one migrates and the others find nothing left.
 */
export async function migrate(client: pg.ClientBase, schema: string, location: string, lockTimeoutMs: number): Promise<void> {
  if (pendingMigrations(MIGRATIONS, await readSchemaVersion(client, schema), ADAPTER, location).length === 0) return;
  const quoted = quoteIdentifier(schema);
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL lock_timeout = ${lockTimeoutMs}`);
    await client.query('SELECT pg_advisory_xact_lock($1::int4, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.roundtable_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const migration of pendingMigrations(MIGRATIONS, await readSchemaVersion(client, schema), ADAPTER, location)) {
      await client.query(migration.sql.replaceAll('$schema', quoted));
      await client.query(`INSERT INTO ${quoted}.roundtable_migrations (version) VALUES ($1)`, [migration.version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

const NOT_A_STORE_FIX = 'Pass the connection string and schema a Roundtable program gives createPostgresStorage.';

/**
 * The read-only open's check (it never migrates or creates): the schema must exist and hold
 * Roundtable's tables at POSTGRES_SCHEMA_VERSION. A missing schema is NOT_A_STORE naming the
 * database's schemas; a schema without the migrations table NOT_A_STORE naming its tables; an
 * older or newer version UNSUPPORTED_SCHEMA_VERSION. Only reads the catalogs.
 */
export async function requireStoreSchema(client: pg.ClientBase, schema: string, location: string): Promise<void> {
  const schemas = await client.query<{ name: string }>(
    "SELECT nspname AS name FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY nspname",
  );
  const names = schemas.rows.map((row) => row.name);
  if (!names.includes(schema)) {
    const found = names.length === 0 ? 'no schemas of its own' : `the schemas ${quotedNames(names)}`;
    throw notAStore(location, `the database has no schema ${JSON.stringify(schema)} (it has ${found})`, NOT_A_STORE_FIX);
  }
  const tables = (await client.query<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename', [schema])).rows.map((row) => row.name);
  if (!tables.includes('roundtable_migrations')) {
    const found = tables.length === 0 ? 'no tables' : `the tables ${quotedNames(tables)}`;
    throw notAStore(location, `schema ${JSON.stringify(schema)} has ${found}, without roundtable_migrations`, NOT_A_STORE_FIX);
  }
  requireCurrentSchema(MIGRATIONS, await readSchemaVersion(client, schema), ADAPTER, location);
}
