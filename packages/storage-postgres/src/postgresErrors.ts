import { StorageError } from '@roundtable/storage';
import { corruptStream, duplicateEventId, storageIoError } from '@roundtable/storage/adapter';

/** Where a PostgreSQL failure happened, so it is reported with the right storage error. */
export interface PostgresErrorContext {
  readonly location: string;
  readonly lockTimeoutMs: number;
  readonly streamId?: string;
  /** The event ids of the batch being appended, to name the one a unique violation is about. */
  readonly eventIds?: readonly string[];
}

interface DatabaseError {
  readonly code: string;
  readonly constraint?: string;
  readonly detail?: string;
  readonly message: string;
}

// SQLSTATE codes are five characters; node's own errors (ECONNREFUSED, …) are not.
function databaseError(error: unknown): DatabaseError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? (error as DatabaseError) : undefined;
}

function uniqueViolation(error: DatabaseError, context: PostgresErrorContext): StorageError {
  const streamId = context.streamId ?? '';
  if (error.constraint?.endsWith('_event_id_key') === true) {
    // The detail reads `Key (namespace, stream_id, event_id)=(…, …, <id>) already exists.`
    const eventId = context.eventIds?.find((id) => error.detail?.includes(`, ${id}) already exists`)) ?? context.eventIds?.[0] ?? '';
    return duplicateEventId(eventId, streamId);
  }
  // `append` moved the head in the same statement, so a clash on a revision means the stored
  // rows disagree with the head.
  return corruptStream(streamId, `its stored rows disagree with its head (${error.constraint ?? error.code}).`, error);
}

/**
 * Turns a pg error into the storage error a caller can act on: a lock held past
 * `lockTimeoutMs` is STORAGE_BUSY; the event-id constraint is DUPLICATE_EVENT_ID; data that
 * breaks the schema's rules is CORRUPT_EVENT_STREAM; every other failure (connection refused or
 * lost, authentication, the server shutting down, disk full) is STORAGE_IO_ERROR with the
 * SQLSTATE or system code in details. Roundtable errors pass through.
 */
export function translatePostgresError(error: unknown, context: PostgresErrorContext): unknown {
  const db = databaseError(error);
  if (db === undefined) return storageIoError(context.location, error);
  if (db.code === '55P03') {
    return new StorageError(
      'STORAGE_BUSY',
      `${context.location}: a lock stayed held by another connection for longer than lockTimeoutMs (${context.lockTimeoutMs} ms); nothing was written.`,
      { details: { lockTimeoutMs: context.lockTimeoutMs, sqlState: db.code }, cause: error },
    );
  }
  if (db.code === '23505') return uniqueViolation(db, context);
  if (db.code.startsWith('23') || db.code === 'XX001' || db.code === 'XX002') {
    const message = `PostgreSQL reports ${db.code} (${db.message}).`;
    if (context.streamId !== undefined) return corruptStream(context.streamId, message, error);
    return new StorageError('CORRUPT_EVENT_STREAM', `The store at ${context.location} is damaged: ${message}`, { details: { location: context.location }, cause: error });
  }
  return new StorageError('STORAGE_IO_ERROR', `The store at ${context.location} failed: ${db.message} (SQLSTATE ${db.code})`, {
    details: { location: context.location, systemCode: db.code },
    cause: error,
  });
}

/** Runs database work and reports pg failures as storage errors. */
export async function withPostgresErrors<T>(context: PostgresErrorContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translatePostgresError(error, context);
  }
}
