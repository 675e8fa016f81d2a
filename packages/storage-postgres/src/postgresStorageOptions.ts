import pg from 'pg';
import { StorageError } from '@roundtable/storage';
import { resolveStorageOptions } from '@roundtable/storage/adapter';
import type { StorageOptions } from '@roundtable/storage';
import type { StorageConfig } from '@roundtable/storage/adapter';

/** What `createPostgresStorage` takes: the options every adapter takes, plus where the server is. */
export interface PostgresStorageOptions extends StorageOptions {
  /** A libpq-style URL (`postgres://user:password@host:5432/database`). The storage makes and ends its own pool. */
  readonly connectionString?: string;
  /** A pool of your own instead (it is left open by `close()`). Give one of `connectionString` and `pool`; with neither, pg's environment defaults (`PGHOST`, …) apply. */
  readonly pool?: pg.Pool;
  /** The PostgreSQL schema that holds the tables (default `'roundtable'`), created if missing (unless `readOnly`). A lower-case identifier. */
  readonly schema?: string;
  /** How long a write waits for a lock another connection holds before STORAGE_BUSY (default 5000 ms). */
  readonly lockTimeoutMs?: number;
  /** Connections in a pool the storage makes (default 10). */
  readonly maxConnections?: number;
}

/** PostgreSQL options with defaults applied and checked. */
export interface PostgresStorageConfig extends StorageConfig {
  readonly schema: string;
  readonly lockTimeoutMs: number;
  readonly maxConnections: number;
  /** `postgres://host:port/database?schema=…`: never a user or password. */
  readonly location: string;
  /** Connection settings for the storage's own connections (its pool, its LISTEN connection). */
  readonly connection: pg.ClientConfig;
  /** The caller's pool, or null when the storage makes its own. */
  readonly pool: pg.Pool | null;
}

export const DEFAULT_SCHEMA = 'roundtable';
export const DEFAULT_LOCK_TIMEOUT_MS = 5000;
const DEFAULT_MAX_CONNECTIONS = 10;
// PostgreSQL keeps lock_timeout in a C int of milliseconds.
const MAX_LOCK_TIMEOUT_MS = 0x7fffffff;
// Unquoted-identifier shape, short enough that derived names (the NOTIFY channel) fit in 63 bytes.
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;

function badOption(message: string): StorageError {
  return new StorageError('INVALID_STORAGE_OPTIONS', message);
}

function integerOption(value: unknown, fallback: number, name: string, min: number, max: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !Number.isSafeInteger(resolved) || resolved < min || resolved > max) {
    throw badOption(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(resolved) ?? typeof resolved}.`);
  }
  return resolved;
}

function isPool(value: unknown): value is pg.Pool {
  return typeof value === 'object' && value !== null && typeof (value as pg.Pool).connect === 'function' && typeof (value as pg.Pool).query === 'function';
}

/** Where pg would connect with these settings (environment defaults included), without a password. */
function describeLocation(connection: pg.ClientConfig, schema: string): string {
  // A Client that never connects resolves the settings exactly as pg will when it does.
  const resolved = new pg.Client(connection) as unknown as { host?: string; port?: number; database?: string };
  const host = resolved.host ?? 'localhost';
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `postgres://${encodeURI(shownHost)}:${resolved.port ?? 5432}/${encodeURIComponent(resolved.database ?? '')}?schema=${schema}`;
}

export function resolvePostgresStorageOptions(options: PostgresStorageOptions): PostgresStorageConfig {
  if (typeof options !== 'object' || options === null) throw badOption('createPostgresStorage needs an options object.');
  const base = resolveStorageOptions(options);
  const { connectionString, pool } = options as { connectionString?: unknown; pool?: unknown };
  if (connectionString !== undefined && pool !== undefined) throw badOption('Give either connectionString or pool, not both.');
  if (connectionString !== undefined && (typeof connectionString !== 'string' || connectionString.trim() === '')) {
    throw badOption('connectionString must be a non-empty string.');
  }
  if (pool !== undefined && !isPool(pool)) throw badOption('pool must be a pg.Pool.');
  const schema: unknown = options.schema ?? DEFAULT_SCHEMA;
  if (typeof schema !== 'string' || !SCHEMA_PATTERN.test(schema)) {
    throw badOption(`schema ${JSON.stringify(schema)} must be a lower-case identifier matching ${SCHEMA_PATTERN.source}.`);
  }
  const lockTimeoutMs = integerOption(options.lockTimeoutMs, DEFAULT_LOCK_TIMEOUT_MS, 'lockTimeoutMs', 1, MAX_LOCK_TIMEOUT_MS);
  const maxConnections = integerOption(options.maxConnections, DEFAULT_MAX_CONNECTIONS, 'maxConnections', 1, 10_000);
  const connection: pg.ClientConfig = pool === undefined ? (connectionString === undefined ? {} : { connectionString }) : { ...(pool.options as pg.ClientConfig) };
  let location: string;
  try {
    location = describeLocation(connection, schema);
  } catch {
    // Not the parser's message: it may quote the string, password included.
    throw badOption('connectionString cannot be parsed as a PostgreSQL connection string.');
  }
  return Object.freeze({ ...base, schema, lockTimeoutMs, maxConnections, location, connection, pool: pool ?? null });
}
