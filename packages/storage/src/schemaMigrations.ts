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
    throw new StorageError(
      'UNSUPPORTED_SCHEMA_VERSION',
      `The store at ${location} has schema version ${current}, newer than this ${adapter} supports (${supported}); upgrade the package to open it.`,
      { details: { schemaVersion: current, supportedSchemaVersion: supported, location } },
    );
  }
  return migrations.filter((migration) => migration.version > current);
}
