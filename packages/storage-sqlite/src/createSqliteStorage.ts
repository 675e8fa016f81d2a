import { hash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { StorageError, assertRevision, assertStreamId, isStreamId } from '@roundtable/storage';
import { changeHints, corruptStream, decodeStoredEventRow, duplicateEventId, prepareAppend, resolveAgainstHead } from '@roundtable/storage/adapter';
import type { NewEvent, ReadOptions, RunStorage, StorageIdentity, StoredEvent } from '@roundtable/storage';
import type { PreparedAppend } from '@roundtable/storage/adapter';
import packageJson from '../package.json' with { type: 'json' };
import { DataVersionHints } from './dataVersionHints.js';
import { closeDatabase, openDatabase } from './openDatabase.js';
import { sqliteCode, withSqliteErrors } from './sqliteErrors.js';
import type { SqliteErrorContext } from './sqliteErrors.js';
import { resolveSqliteStorageOptions } from './sqliteStorageOptions.js';
import type { SqliteStorageOptions } from './sqliteStorageOptions.js';
import { WalCheckpointer } from './walCheckpointer.js';

const ADAPTER = '@roundtable/storage-sqlite';
// Reads fetch this many rows per query: never a whole stream at once, never a query per event.
// 256 keeps a page of the largest events (256 KiB payloads) around 64 MiB.
const PAGE_ROWS = 256;
// What the write transaction returns when another writer moved the head after `append` decided.
const HEAD_MOVED = Symbol('head moved');

/** One row of the `events` table as a read selects it, as an array: revision, event_id, body, checksum. */
type EventRow = readonly [revision: unknown, eventId: unknown, body: unknown, checksum: unknown];
/** The head statement's one row: the stream's recorded head and its last stored revision. */
type HeadRow = readonly [head: unknown, last: unknown];

/** SHA-256 (hex) of the UTF-8 bytes of an event's stored text: the `checksum` column. */
const bodyChecksum = (body: string): string => hash('sha256', body);

function prepareStatements(db: BetterSqlite3.Database) {
  return {
    // One statement, so both numbers come from one snapshot: a head that disagrees with the rows is damage.
    // The statements an append and a read run take positional parameters and the head comes
    // back as an array: no parameter object to build and no row object per call.
    head: db
      .prepare<[namespace: string, streamId: string, namespace: string, streamId: string], HeadRow>(
        `SELECT (SELECT head FROM streams WHERE namespace = ? AND stream_id = ?),
                (SELECT MAX(revision) FROM events WHERE namespace = ? AND stream_id = ?)`,
      )
      .raw(),
    // Rows as arrays (revision, event_id, body, checksum): no object per row on the read path.
    page: db
      .prepare<[namespace: string, streamId: string, after: number, head: number, limit: number], EventRow>(
        `SELECT revision, event_id, body, checksum FROM events
         WHERE namespace = ? AND stream_id = ? AND revision > ? AND revision <= ?
         ORDER BY revision LIMIT ?`,
      )
      .raw(),
    bodies: db
      .prepare<{ namespace: string; streamId: string; from: number; to: number }, unknown>(
        `SELECT body FROM events
         WHERE namespace = @namespace AND stream_id = @streamId AND revision BETWEEN @from AND @to
         ORDER BY revision`,
      )
      .pluck(),
    eventRevision: db
      .prepare<{ namespace: string; streamId: string; eventId: string }, unknown>(
        'SELECT revision FROM events WHERE namespace = @namespace AND stream_id = @streamId AND event_id = @eventId',
      )
      .pluck(),
    insert: db.prepare<[namespace: string, streamId: string, revision: number, eventId: string, body: string, checksum: string]>(
      'INSERT INTO events (namespace, stream_id, revision, event_id, body, checksum) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setHead: db.prepare<[namespace: string, streamId: string, head: number]>(
      `INSERT INTO streams (namespace, stream_id, head) VALUES (?, ?, ?)
       ON CONFLICT (namespace, stream_id) DO UPDATE SET head = excluded.head`,
    ),
    streams: db.prepare<{ namespace: string; after: string; limit: number }, { stream_id: unknown; head: unknown }>(
      `SELECT stream_id, head FROM streams WHERE namespace = @namespace AND stream_id > @after
       ORDER BY stream_id LIMIT @limit`,
    ),
  };
}

/** The length of a batch's stored texts (about its bytes, for pacing checkpoints). */
function textChars(prepared: PreparedAppend): number {
  let chars = 0;
  for (const text of prepared.texts) chars += text.length;
  return chars;
}

function isRevisionNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Runs synchronous work as a promise, so a thrown error becomes a rejection. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}

/**
 * A `RunStorage` over one SQLite file (better-sqlite3, WAL). Instances in any number of
 * processes may share the file: every write is one BEGIN IMMEDIATE transaction. Opening
 * creates the file (0600) and applies schema migrations; it throws a StorageError when the
 * options are invalid or the file cannot be used. With `readOnly: true` it creates, migrates
 * and writes nothing: the file must already be a store at this schema version (NOT_A_STORE,
 * UNSUPPORTED_SCHEMA_VERSION otherwise), and every append is refused (STORAGE_READ_ONLY).
 */
export function createSqliteStorage(options: SqliteStorageOptions): RunStorage {
  const config = resolveSqliteStorageOptions(options);
  const { namespace } = config;
  const db = openDatabase(config);
  let statements: ReturnType<typeof prepareStatements>;
  try {
    // A file whose migrations table is there but whose tables are not fails here: typed, and closed.
    statements = withSqliteErrors({ location: config.location, busyTimeoutMs: config.busyTimeoutMs }, () => prepareStatements(db));
  } catch (error) {
    closeDatabase(db, config.location);
    throw error;
  }
  const identity: StorageIdentity = Object.freeze({ adapter: ADAPTER, version: packageJson.version, namespace, location: config.location });
  let closed = false;
  const hints = new DataVersionHints(config.location, config.busyTimeoutMs);
  // With 'full', SQLite's own checkpoints (see WalCheckpointer for why); a read-only instance commits nothing.
  const checkpointer = config.synchronous === 'normal' && !config.readOnly ? new WalCheckpointer(db, config) : null;
  const closing = new AbortController();
  let closeDone: Promise<void> | null = null;

  const context = (streamId?: string): SqliteErrorContext => ({ location: config.location, busyTimeoutMs: config.busyTimeoutMs, streamId });

  function assertOpen(): void {
    if (closed) throw new StorageError('STORAGE_CLOSED', `The SQLite storage ${config.location} (namespace ${namespace}) is closed.`);
  }

  function readHead(streamId: string): number {
    const [recorded, stored] = statements.head.get(namespace, streamId, namespace, streamId)!;
    const head = recorded ?? 0;
    const last = stored ?? 0;
    if (!isRevisionNumber(head) || head !== last) {
      throw corruptStream(streamId, `its head is ${JSON.stringify(head)} but its last stored revision is ${JSON.stringify(last)}.`);
    }
    return head;
  }

  function committedTexts(streamId: string, from: number, to: number): string[] {
    // A damaged body simply differs from the batch, so the retry is refused as a conflict.
    return statements.bodies.all({ namespace, streamId, from, to }).map((body) => (typeof body === 'string' ? body : ''));
  }

  // Under BEGIN IMMEDIATE: write the batch if the head is still `expectedRevision`. A repeated
  // event id is left to the table's UNIQUE constraint (no lookup per event on the hot path).
  const writeBatch = db.transaction((prepared: PreparedAppend, checksums: readonly string[]): number | typeof HEAD_MOVED => {
    const { streamId, expectedRevision } = prepared;
    if (readHead(streamId) !== expectedRevision) return HEAD_MOVED;
    const { texts, eventIds } = prepared;
    for (let index = 0; index < texts.length; index++) {
      statements.insert.run(namespace, streamId, expectedRevision + index + 1, eventIds[index]!, texts[index]!, checksums[index]!);
    }
    statements.setHead.run(namespace, streamId, prepared.nextHead);
    return prepared.nextHead;
  });

  function tryWrite(prepared: PreparedAppend, checksums: readonly string[]): number | typeof HEAD_MOVED {
    try {
      return writeBatch.immediate(prepared, checksums);
    } catch (error) {
      // The transaction rolled back. An id already in the stream is DUPLICATE_EVENT_ID; any other
      // constraint failure means the rows disagree with the head (damage, reported as such).
      if (sqliteCode(error) === 'SQLITE_CONSTRAINT_UNIQUE') {
        const { streamId } = prepared;
        const duplicate = prepared.eventIds.find((eventId) => statements.eventRevision.get({ namespace, streamId, eventId }) !== undefined);
        if (duplicate !== undefined) throw duplicateEventId(duplicate, streamId);
      }
      throw error;
    }
  }

  async function append(streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
    assertOpen();
    const prepared = prepareAppend(config, streamId, expectedRevision, events);
    const checksums = prepared.texts.map(bodyChecksum);
    const errors = context(streamId);
    // Optimistic: one transaction that writes when the head is at expectedRevision. Only when it
    // was elsewhere, apply the port's rule (a byte-identical retry of a committed batch, or
    // REVISION_CONFLICT); the rule reads outside the transaction (better-sqlite3 transactions
    // cannot await), and heads only grow, so a "write" from it ends the next pass.
    for (;;) {
      const written = withSqliteErrors(errors, () => tryWrite(prepared, checksums));
      if (written !== HEAD_MOVED) {
        checkpointer?.committed(textChars(prepared));
        return written;
      }
      const head = withSqliteErrors(errors, () => readHead(streamId));
      const decision = await resolveAgainstHead(prepared, head, (from, to) => withSqliteErrors(errors, () => committedTexts(streamId, from, to)));
      if (decision !== 'write') return decision;
      assertOpen();
    }
  }

  async function* read(streamId: string, readOptions: ReadOptions = {}): AsyncGenerator<StoredEvent> {
    assertOpen();
    assertStreamId(streamId);
    const after = readOptions.after ?? 0;
    assertRevision(after, 'after');
    const errors = context(streamId);
    const head = withSqliteErrors(errors, () => readHead(streamId));
    let next = after + 1;
    while (next <= head) {
      // Between pages, let timers and I/O run: a long read must not hold the event loop.
      if (next > after + 1) await nextTurn();
      assertOpen();
      const rows = withSqliteErrors(errors, () => statements.page.all(namespace, streamId, next - 1, head, PAGE_ROWS));
      if (rows.length === 0) throw corruptStream(streamId, `revisions ${next} to ${head} are missing.`);
      for (const [revision, eventId, body, checksum] of rows) {
        yield decodeStoredEventRow({ revision: typeof revision === 'number' ? revision : null, eventId, body, checksum }, streamId, next, bodyChecksum);
        next++;
      }
    }
  }

  async function* streams(): AsyncGenerator<{ streamId: string; head: number }> {
    let after = '';
    for (let page = 0; ; page++) {
      if (page > 0) await nextTurn();
      assertOpen();
      const rows = withSqliteErrors(context(), () => statements.streams.all({ namespace, after, limit: PAGE_ROWS }));
      for (const row of rows) {
        const streamId = String(row.stream_id);
        if (!isStreamId(row.stream_id) || !isRevisionNumber(row.head) || row.head === 0) {
          throw corruptStream(streamId, `its entry in the streams table is malformed.`);
        }
        yield { streamId, head: row.head };
        after = streamId;
      }
      if (rows.length < PAGE_ROWS) return;
    }
  }

  return {
    identity,
    head: (streamId) =>
      settle(() => {
        assertOpen();
        assertStreamId(streamId);
        return withSqliteErrors(context(streamId), () => readHead(streamId));
      }),
    read,
    append,
    streams,
    // Hints from `PRAGMA data_version` on a connection of their own; they end on abort or close.
    changes: (streamId, signal) => {
      assertOpen();
      assertStreamId(streamId);
      return changeHints(AbortSignal.any([signal, closing.signal]), (notify) => hints.subscribe(notify));
    },
    // Every call waits for the same close: the checkpoint worker's connection first, then this one
    // (so this, the last connection, checkpoints the WAL and removes it, as it always did).
    close: () =>
      (closeDone ??= (async () => {
        closed = true;
        closing.abort();
        hints.stop();
        await checkpointer?.stop();
        closeDatabase(db, config.location);
      })()),
  };
}
