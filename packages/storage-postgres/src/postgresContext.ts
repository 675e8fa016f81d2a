import pg from 'pg';
import { StorageError } from '@roundtable/storage';
import type { StorageIdentity } from '@roundtable/storage';
import packageJson from '../package.json' with { type: 'json' };
import { ChangeListener } from './changeListener.js';
import { migrate, requireStoreSchema } from './migrations.js';
import { withPostgresErrors } from './postgresErrors.js';
import type { PostgresErrorContext } from './postgresErrors.js';
import { postgresStatements } from './postgresStatements.js';
import type { PostgresStatements } from './postgresStatements.js';
import { resolvePostgresStorageOptions } from './postgresStorageOptions.js';
import type { PostgresStorageConfig, PostgresStorageOptions } from './postgresStorageOptions.js';

const ADAPTER = '@roundtable/storage-postgres';

/** The NOTIFY channel of one schema: every storage over it announces its commits there. */
export function changeChannel(schema: string): string {
  return `roundtable_changes_${schema}`;
}

/** What every operation of one PostgreSQL storage instance shares. */
export interface PostgresContext {
  readonly config: PostgresStorageConfig;
  readonly namespace: string;
  readonly sql: PostgresStatements;
  readonly channel: string;
  /** Whether the pool is this instance's own (ended on close) or the caller's. */
  readonly ownsPool: boolean;
  readonly pool: pg.Pool;
  readonly listener: ChangeListener;
  readonly identity: StorageIdentity;
  closed: boolean;
  /** The connect-and-migrate of `ready()`, once it started; null again after it failed. */
  readiness: Promise<void> | null;
}

/** Checks the options and sets up the pool and the listener; connects nothing yet (see `ready`). */
export function openPostgresContext(options: PostgresStorageOptions): PostgresContext {
  const config = resolvePostgresStorageOptions(options);
  const { namespace, schema, location, lockTimeoutMs } = config;
  const ownsPool = config.pool === null;
  // Our own connections wait at most lockTimeoutMs for a lock; a caller's pool keeps its
  // sessions' settings, so its appends set the timeout for their own transaction only.
  const ownConnection: pg.ClientConfig = { ...config.connection, options: `-c lock_timeout=${lockTimeoutMs}`, application_name: 'roundtable-storage' };
  // A read-only instance's own pool has the server refuse any write too, whatever the code does.
  const poolOptions = config.readOnly ? `${ownConnection.options} -c default_transaction_read_only=on` : ownConnection.options;
  const pool = config.pool ?? new pg.Pool({ ...ownConnection, options: poolOptions, max: config.maxConnections });
  // An idle connection the server drops emits 'error' on the pool; the next query reports it.
  if (ownsPool) pool.on('error', () => undefined);
  const channel = changeChannel(schema);
  const listener = new ChangeListener(() => new pg.Client({ ...ownConnection, application_name: 'roundtable-listen' }), channel);
  const identity: StorageIdentity = Object.freeze({ adapter: ADAPTER, version: packageJson.version, namespace, location });
  return { config, namespace, sql: postgresStatements(schema), channel, ownsPool, pool, listener, identity, closed: false, readiness: null };
}

/** `RunStorage.close` of the PostgreSQL adapter: the listener, then the pool if it is this instance's own. */
export async function closePostgresContext(context: PostgresContext): Promise<void> {
  if (context.closed) return;
  context.closed = true;
  await context.listener.close();
  if (context.ownsPool) await context.pool.end();
}

export function assertOpen(context: PostgresContext): void {
  if (context.closed) throw new StorageError('STORAGE_CLOSED', `The PostgreSQL storage ${context.config.location} (namespace ${context.namespace}) is closed.`);
}

/** What an error of this instance reports (`withPostgresErrors`). */
export function errorContext(context: PostgresContext, streamId?: string, eventIds?: readonly string[]): PostgresErrorContext {
  return { location: context.config.location, lockTimeoutMs: context.config.lockTimeoutMs, streamId, eventIds };
}

/** `PostgresStorage.ready`: connects and migrates (or, read-only, checks the schema) once; a failure is not remembered. */
export function ready(context: PostgresContext): Promise<void> {
  assertOpen(context);
  const { config, pool } = context;
  context.readiness ??= withPostgresErrors(errorContext(context), async () => {
    const client = await pool.connect();
    let failure: unknown;
    try {
      if (config.readOnly) await requireStoreSchema(client, config.schema, config.location);
      else await migrate(client, config.schema, config.location, config.lockTimeoutMs);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      client.release(failure instanceof Error && !('severity' in failure) ? failure : undefined);
    }
  }).catch((error: unknown) => {
    // A failed start is not remembered: the next call tries again (the server may be back).
    context.readiness = null;
    throw error;
  });
  return context.readiness;
}
