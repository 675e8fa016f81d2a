import { hash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { corruptStream } from '@roundtable/storage/adapter';

// Reads fetch this many rows per query: never a whole stream at once, never a query per event.
// 256 keeps a page of the largest events (256 KiB payloads) around 64 MiB.
export const PAGE_ROWS = 256;

/** One row of the `events` table as a read selects it, as an array: revision, event_id, body, checksum. */
type EventRow = readonly [revision: unknown, eventId: unknown, body: unknown, checksum: unknown];
/** The head statement's one row: the stream's recorded head and its last stored revision. */
type HeadRow = readonly [head: unknown, last: unknown];

/** SHA-256 (hex) of the UTF-8 bytes of an event's stored text: the `checksum` column. */
export const bodyChecksum = (body: string): string => hash('sha256', body);

export function isRevisionNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The statements of one connection, prepared once when the storage opens. */
export interface SqliteStatements {
  readonly head: BetterSqlite3.Statement<[namespace: string, streamId: string, namespace: string, streamId: string], HeadRow>;
  readonly page: BetterSqlite3.Statement<[namespace: string, streamId: string, after: number, head: number, limit: number], EventRow>;
  readonly bodies: BetterSqlite3.Statement<{ namespace: string; streamId: string; from: number; to: number }, unknown>;
  readonly eventRevision: BetterSqlite3.Statement<{ namespace: string; streamId: string; eventId: string }, unknown>;
  readonly insert: BetterSqlite3.Statement<[namespace: string, streamId: string, revision: number, eventId: string, body: string, checksum: string]>;
  readonly setHead: BetterSqlite3.Statement<[namespace: string, streamId: string, head: number]>;
  readonly streams: BetterSqlite3.Statement<{ namespace: string; after: string; limit: number }, { stream_id: unknown; head: unknown }>;
}

export function prepareStatements(db: BetterSqlite3.Database): SqliteStatements {
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

/** A stream's head, checked against its last stored revision (CORRUPT_EVENT_STREAM when they differ). */
export function storedHead(statements: SqliteStatements, namespace: string, streamId: string): number {
  const [recorded, stored] = statements.head.get(namespace, streamId, namespace, streamId)!;
  const head = recorded ?? 0;
  const last = stored ?? 0;
  if (!isRevisionNumber(head) || head !== last) {
    throw corruptStream(streamId, `its head is ${JSON.stringify(head)} but its last stored revision is ${JSON.stringify(last)}.`);
  }
  return head;
}
