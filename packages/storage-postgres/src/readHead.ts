import { assertStreamId } from '@roundtable/storage';
import { corruptStream } from '@roundtable/storage/adapter';
import { assertOpen, errorContext } from './postgresContext.js';
import type { PostgresContext } from './postgresContext.js';
import { revisionFromText } from './revisionFromText.js';
import { query } from './runStatement.js';

/** A stream's head, checked against its last stored revision (CORRUPT_EVENT_STREAM when they differ). */
export async function storedHead(context: PostgresContext, streamId: string): Promise<number> {
  const [row] = await query<{ head: unknown; last: unknown }>(context, errorContext(context, streamId), context.sql.head, [context.namespace, streamId]);
  const head = row?.head === null ? 0 : revisionFromText(row?.head);
  const last = row?.last === null ? 0 : revisionFromText(row?.last);
  if (head === null || head !== last) {
    throw corruptStream(streamId, `its head is ${JSON.stringify(row?.head ?? null)} but its last stored revision is ${JSON.stringify(row?.last ?? null)}.`);
  }
  return head;
}

/** `RunStorage.head` of the PostgreSQL adapter. */
export async function readHead(context: PostgresContext, streamId: string): Promise<number> {
  assertOpen(context);
  assertStreamId(streamId);
  return storedHead(context, streamId);
}
