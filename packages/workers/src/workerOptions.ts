import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { DEFAULT_QUEUE_SCHEMA } from './jobQueue.js';
import { WorkersError } from './workersErrors.js';

/** Where runs and jobs are kept: the options every function of the package takes. */
export interface WorkersConnectionOptions {
  /** The PostgreSQL database holding the runs (storage-postgres) and the jobs (pg-boss). */
  readonly connectionString: string;
  /** The storage schema (default `'roundtable'`). */
  readonly schema?: string;
  /** The storage namespace (default `'default'`). */
  readonly namespace?: string;
  /** The pg-boss schema (default `'roundtable_jobs'`). */
  readonly queueSchema?: string;
}

export interface ResolvedConnection {
  readonly connectionString: string;
  readonly schema: string | undefined;
  readonly namespace: string;
  readonly queueSchema: string;
}

export function badOption(message: string): WorkersError {
  return new WorkersError('INVALID_WORKERS_OPTIONS', message);
}

const QUEUE_SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;

export function resolveConnection(options: unknown, what: string): ResolvedConnection {
  if (typeof options !== 'object' || options === null) throw badOption(`${what} needs an options object with a connectionString.`);
  const { connectionString, schema, namespace, queueSchema } = options as Partial<WorkersConnectionOptions>;
  if (typeof connectionString !== 'string' || connectionString.trim() === '') throw badOption(`${what}: connectionString must be a non-empty string.`);
  const resolvedQueueSchema = queueSchema ?? DEFAULT_QUEUE_SCHEMA;
  if (typeof resolvedQueueSchema !== 'string' || !QUEUE_SCHEMA_PATTERN.test(resolvedQueueSchema)) {
    throw badOption(`${what}: queueSchema must be a lower-case identifier matching ${QUEUE_SCHEMA_PATTERN.source}.`);
  }
  // schema and namespace are checked by createPostgresStorage (INVALID_STORAGE_OPTIONS).
  return { connectionString, schema, namespace: namespace ?? 'default', queueSchema: resolvedQueueSchema };
}

export function integerOption(value: unknown, fallback: number, name: string, min: number, max: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !Number.isSafeInteger(resolved) || resolved < min || resolved > max) {
    throw badOption(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(resolved) ?? typeof resolved}.`);
  }
  return resolved;
}

export function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
