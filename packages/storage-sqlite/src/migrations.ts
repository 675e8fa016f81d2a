import type BetterSqlite3 from 'better-sqlite3';
import { latestSchemaVersion, notAStore, pendingMigrations, quotedNames, requireCurrentSchema } from '@roundtable/storage/adapter';
import type { SchemaMigration } from '@roundtable/storage/adapter';

/**
 * The schema, one step per version. A step is never edited once released: a change is a new
 * step. `body` is the event's canonical JSON exactly as `prepareAppend` produced it and
 * `checksum` the SHA-256 (hex) of its UTF-8 bytes. `streams.head` makes head lookups and
 * listing streams cheap; `append` keeps it equal to the stream's last revision.
 */
export const MIGRATIONS: readonly SchemaMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE streams (
        namespace TEXT NOT NULL,
        stream_id TEXT NOT NULL,
        head INTEGER NOT NULL CHECK (head > 0),
        PRIMARY KEY (namespace, stream_id)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE events (
        namespace TEXT NOT NULL,
        stream_id TEXT NOT NULL,
        revision INTEGER NOT NULL CHECK (revision > 0),
        event_id TEXT NOT NULL,
        body TEXT NOT NULL,
        checksum TEXT NOT NULL,
        PRIMARY KEY (namespace, stream_id, revision),
        UNIQUE (namespace, stream_id, event_id)
      ) STRICT;
    `,
  },
];

/** The schema version this code writes; a database at a newer version is refused. */
export const SQLITE_SCHEMA_VERSION = latestSchemaVersion(MIGRATIONS);

function readSchemaVersion(db: BetterSqlite3.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'roundtable_migrations'").get();
  if (table === undefined) return 0;
  const row = db.prepare('SELECT MAX(version) AS version FROM roundtable_migrations').get() as { version: number | null };
  return row.version ?? 0;
}

const ADAPTER = '@roundtable/storage-sqlite';

/**
 * Brings the database to SQLITE_SCHEMA_VERSION. The check and every step run in one BEGIN IMMEDIATE
 * transaction, so of several processes opening a fresh file at once exactly one migrates and
 * the others wait for it, then find nothing to do.
 */
export function migrate(db: BetterSqlite3.Database, location: string): void {
  if (pendingMigrations(MIGRATIONS, readSchemaVersion(db), ADAPTER, location).length === 0) return;
  const applyPending = db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS roundtable_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT');
    const record = db.prepare('INSERT INTO roundtable_migrations (version, applied_at) VALUES (?, ?)');
    for (const migration of pendingMigrations(MIGRATIONS, readSchemaVersion(db), ADAPTER, location)) {
      db.exec(migration.sql);
      record.run(migration.version, new Date().toISOString());
    }
  });
  applyPending.immediate();
}

/** What a read-only open tells a caller to pass instead of a database that is not a store. */
export const NOT_A_STORE_FIX = 'Pass the database file a Roundtable program gave createSqliteStorage as its filename.';

function describeTables(tables: readonly string[]): string {
  if (tables.length === 0) return 'it is a SQLite database with no tables';
  return `it is a SQLite database whose ${tables.length === 1 ? 'table is' : `${tables.length} tables are`} ${quotedNames(tables)}, without roundtable_migrations`;
}

/**
 * The read-only open's check (it never migrates): the database must hold Roundtable's schema at
 * SQLITE_SCHEMA_VERSION. Without the migrations table it is NOT_A_STORE naming the tables it has;
 * an older or newer version is UNSUPPORTED_SCHEMA_VERSION. Only reads.
 */
export function requireStoreSchema(db: BetterSqlite3.Database, location: string): void {
  const tables = db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all();
  if (!tables.includes('roundtable_migrations')) throw notAStore(location, describeTables(tables), NOT_A_STORE_FIX);
  requireCurrentSchema(MIGRATIONS, readSchemaVersion(db), ADAPTER, location);
}
