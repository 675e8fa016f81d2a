import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunStorage } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import { createSqliteStorage } from '@roundtable/storage-sqlite';
import { CliError } from './cliError.js';

/** Where a store is, as `--store` (or ROUNDTABLE_STORE) names it. */
export type StoreSpec =
  | { readonly adapter: 'fs'; readonly directory: string }
  | { readonly adapter: 'sqlite'; readonly filename: string }
  | { readonly adapter: 'postgres'; readonly connectionString: string };

export interface OpenStoreOptions {
  /** `fs:<dir>` or a directory, `sqlite:<file>` or a `.sqlite`/`.db` file (or any SQLite file), `postgres://…`. */
  readonly store: string;
  readonly namespace?: string;
  /** Open for appending (answer, cancel, fork); every other command opens read-only. */
  readonly writable?: boolean;
}

const SQLITE_HEADER = 'SQLite format 3\u0000';

function kindOfPath(path: string): 'directory' | 'file' | null {
  try {
    const stats = statSync(path);
    return stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}

function hasSqliteHeader(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const header = Buffer.alloc(16);
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === SQLITE_HEADER;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Reads a `--store` value. Only stores that exist are accepted: the CLI reads, so a typo must
 * not create an empty store.
 */
export function parseStoreSpec(store: string): StoreSpec {
  if (typeof store !== 'string' || store.trim() === '') {
    throw new CliError('USAGE', 'No store given: pass --store <fs:DIR | sqlite:FILE | postgres://…> or set ROUNDTABLE_STORE.');
  }
  if (/^postgres(ql)?:\/\//.test(store)) return { adapter: 'postgres', connectionString: store };
  if (store.startsWith('fs:')) {
    const directory = resolve(store.slice(3));
    if (kindOfPath(directory) !== 'directory') throw new CliError('STORE_NOT_FOUND', `No store directory at ${directory}.`, { details: { store } });
    return { adapter: 'fs', directory };
  }
  if (store.startsWith('sqlite:')) {
    const filename = resolve(store.slice(7));
    if (kindOfPath(filename) !== 'file') throw new CliError('STORE_NOT_FOUND', `No SQLite file at ${filename}.`, { details: { store } });
    return { adapter: 'sqlite', filename };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(store)) throw new CliError('UNSUPPORTED_STORE', `Unsupported store ${store}: use fs:DIR, sqlite:FILE or postgres://…`, { details: { store } });
  const path = resolve(store);
  const kind = kindOfPath(path);
  if (kind === 'directory') return { adapter: 'fs', directory: path };
  if (kind === 'file') {
    if (/\.(sqlite|db)$/i.test(path) || hasSqliteHeader(path)) return { adapter: 'sqlite', filename: path };
    throw new CliError('UNSUPPORTED_STORE', `${path} is neither a store directory nor a SQLite file.`, { details: { store } });
  }
  throw new CliError('STORE_NOT_FOUND', `No store at ${path}.`, { details: { store } });
}

interface PostgresModule {
  createPostgresStorage(options: { connectionString: string; namespace?: string; readOnly?: boolean }): RunStorage | Promise<RunStorage>;
}

/** The PostgreSQL adapter, an optional install; `specifier` is only ever changed by tests. */
export async function loadPostgresAdapter(specifier = '@roundtable/storage-postgres'): Promise<PostgresModule> {
  // Imported by a variable: the adapter is an optional peer, not a dependency.
  try {
    const loaded = (await import(specifier)) as Partial<PostgresModule>;
    if (typeof loaded.createPostgresStorage !== 'function') throw new Error('it does not export createPostgresStorage');
    return loaded as PostgresModule;
  } catch (error) {
    throw new CliError('STORE_ADAPTER_MISSING', 'A postgres:// store needs @roundtable/storage-postgres (and pg) installed next to @roundtable/cli.', { cause: error });
  }
}

/**
 * Opens the store `--store` names, by default with `readOnly: true`: the adapter creates nothing
 * (no file, folder, table, schema or namespace), never migrates, and refuses appends, so no
 * command that reads can change a store or make one. A location that holds no store is the
 * adapter's NOT_A_STORE, naming what is there. `writable` is for the three commands that append.
 */
export async function openStore(options: OpenStoreOptions): Promise<RunStorage> {
  const spec = parseStoreSpec(options.store);
  const common = { readOnly: options.writable !== true, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) };
  switch (spec.adapter) {
    case 'fs':
      return createFsStorage({ directory: spec.directory, ...common });
    case 'sqlite':
      return createSqliteStorage({ filename: spec.filename, ...common });
    case 'postgres': {
      const adapter = await loadPostgresAdapter();
      return await adapter.createPostgresStorage({ connectionString: spec.connectionString, ...common });
    }
  }
}

/** A store description for people, never with a password. */
export function describeStore(spec: StoreSpec): string {
  switch (spec.adapter) {
    case 'fs':
      return `fs:${spec.directory}`;
    case 'sqlite':
      return `sqlite:${spec.filename}`;
    case 'postgres':
      return spec.connectionString.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  }
}
