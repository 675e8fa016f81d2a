import type BetterSqlite3 from 'better-sqlite3';
import { StorageError } from '@roundtable/storage';

export interface Migration {
  readonly version: number;
  readonly sql: string;
}

/**
 * The schema, one step per version. A step is never edited once released: a change is a new
 * step. `body` is the event's canonical JSON exactly as `prepareAppend` produced it and
 * `checksum` the SHA-256 (hex) of its UTF-8 bytes. `streams.head` makes head lookups and
 * listing streams cheap; `append` keeps it equal to the stream's last revision.
 */
export const MIGRATIONS: readonly Migration[] = [
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
export const SQLITE_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

function readSchemaVersion(db: BetterSqlite3.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'roundtable_migrations'").get();
  if (table === undefined) return 0;
  const row = db.prepare('SELECT MAX(version) AS version FROM roundtable_migrations').get() as { version: number | null };
  return row.version ?? 0;
}

function assertKnownVersion(version: number, location: string): void {
  if (version <= SQLITE_SCHEMA_VERSION) return;
  throw new StorageError(
    'UNSUPPORTED_SCHEMA_VERSION',
    `The database ${location} has schema version ${version}, newer than this @roundtable/storage-sqlite supports (${SQLITE_SCHEMA_VERSION}); upgrade the package to open it.`,
    { details: { schemaVersion: version, supportedSchemaVersion: SQLITE_SCHEMA_VERSION, location } },
  );
}

/**
 * Brings the database to SQLITE_SCHEMA_VERSION. The check and every step run in one BEGIN IMMEDIATE
 * transaction, so of several processes opening a fresh file at once exactly one migrates and
 * the others wait for it, then find nothing to do.
 */
export function migrate(db: BetterSqlite3.Database, location: string): void {
  const seen = readSchemaVersion(db);
  assertKnownVersion(seen, location);
  if (seen === SQLITE_SCHEMA_VERSION) return;
  const applyPending = db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS roundtable_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT');
    const current = readSchemaVersion(db);
    assertKnownVersion(current, location);
    const record = db.prepare('INSERT INTO roundtable_migrations (version, applied_at) VALUES (?, ?)');
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, new Date().toISOString());
    }
  });
  applyPending.immediate();
}
