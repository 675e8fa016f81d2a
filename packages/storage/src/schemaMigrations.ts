import { StorageError } from './errors.js';

/** One step of a backing store's schema. A step is never edited once released: a change is a new step. */
export interface SchemaMigration {
  readonly version: number;
  readonly sql: string;
}

/** The schema version a list of steps brings a store to: the last step's. */
export function latestSchemaVersion(migrations: readonly SchemaMigration[]): number {
  return migrations.at(-1)?.version ?? 0;
}

/**
 * The rule every versioned adapter applies when it opens a store: a schema newer than the code
 * is left untouched and refused (UNSUPPORTED_SCHEMA_VERSION); otherwise the steps after
 * `current`, in order, are what is left to apply (none when the store is up to date).
 */
export function pendingMigrations(migrations: readonly SchemaMigration[], current: number, adapter: string, location: string): readonly SchemaMigration[] {
  const supported = latestSchemaVersion(migrations);
  if (current > supported) {
    throw unsupportedSchema(`The store at ${location} has schema version ${current}, newer than this ${adapter} supports (${supported}); upgrade the package to open it.`, current, supported, location);
  }
  return migrations.filter((migration) => migration.version > current);
}

/**
 * The rule of a read-only open (`readOnly: true`), which never migrates: the store must be at
 * exactly the latest version. Newer is refused as `pendingMigrations` refuses it; older is
 * UNSUPPORTED_SCHEMA_VERSION too, naming the fix (open it once without `readOnly`).
 */
export function requireCurrentSchema(migrations: readonly SchemaMigration[], current: number, adapter: string, location: string): void {
  if (pendingMigrations(migrations, current, adapter, location).length === 0) return;
  const supported = latestSchemaVersion(migrations);
  throw unsupportedSchema(
    `The store at ${location} has schema version ${current}, older than this ${adapter} reads (${supported}), and a read-only open never migrates: open it once without readOnly (any writer of this version migrates it), then read it.`,
    current,
    supported,
    location,
  );
}

function unsupportedSchema(message: string, current: number, supported: number, location: string): StorageError {
  return new StorageError('UNSUPPORTED_SCHEMA_VERSION', message, { details: { schemaVersion: current, supportedSchemaVersion: supported, location } });
}
