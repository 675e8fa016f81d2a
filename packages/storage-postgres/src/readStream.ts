import { setImmediate as nextTurn } from 'node:timers/promises';
import type pg from 'pg';
import { assertRevision, assertStreamId } from '@roundtable/storage';
import type { ReadOptions, StoredEvent } from '@roundtable/storage';
import { corruptStream, decodeStoredEventRow } from '@roundtable/storage/adapter';
import { assertOpen, errorContext } from './postgresContext.js';
import type { PostgresContext } from './postgresContext.js';
import { bodyChecksum } from './postgresStatements.js';
import { storedHead } from './readHead.js';
import { revisionFromText } from './revisionFromText.js';
import { query } from './runStatement.js';

/** One row of the `events` table as a read selects it (`revision` as text: it is a bigint). */
interface EventRow extends pg.QueryResultRow {
  readonly revision: unknown;
  readonly event_id: unknown;
  readonly body: unknown;
  readonly checksum: unknown;
}

/** `RunStorage.read` of the PostgreSQL adapter: pages up to the head when iteration starts, the next page asked for while this one is consumed. */
export async function* readStream(context: PostgresContext, streamId: string, options: ReadOptions = {}): AsyncGenerator<StoredEvent> {
  assertOpen(context);
  assertStreamId(streamId);
  const after = options.after ?? 0;
  assertRevision(after, 'after');
  const head = await storedHead(context, streamId);
  const errors = errorContext(context, streamId);
  const page = (from: number) => {
    const rows = query<EventRow>(context, errors, context.sql.page, [context.namespace, streamId, from, head]);
    // Awaited below, or dropped when the reader stops early: never an unhandled rejection.
    rows.catch(() => undefined);
    return rows;
  };
  let next = after + 1;
  let pending = next <= head ? page(after) : null;
  while (pending !== null) {
    const rows = await pending;
    assertOpen(context);
    if (rows.length === 0) throw corruptStream(streamId, `revisions ${next} to ${head} are missing.`);
    // Ask for the next page now, so the server's round trip overlaps decoding and consuming this one.
    const last = next - 1 + rows.length;
    pending = last < head ? page(last) : null;
    for (const row of rows) {
      yield decodeStoredEventRow({ revision: revisionFromText(row.revision), eventId: row.event_id, body: row.body, checksum: row.checksum }, streamId, next, bodyChecksum);
      next++;
    }
    // Between pages, let timers and I/O run even when the consumer is synchronous.
    await nextTurn();
  }
}
