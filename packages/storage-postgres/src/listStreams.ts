import { isStreamId } from '@roundtable/storage';
import { corruptStream } from '@roundtable/storage/adapter';
import { assertOpen, errorContext } from './postgresContext.js';
import type { PostgresContext } from './postgresContext.js';
import { PAGE_ROWS } from './postgresStatements.js';
import { revisionFromText } from './revisionFromText.js';
import { query } from './runStatement.js';

/** `RunStorage.streams` of the PostgreSQL adapter: the streams table in id order, a page at a time. */
export async function* listStreams(context: PostgresContext): AsyncGenerator<{ streamId: string; head: number }> {
  assertOpen(context);
  let after = '';
  for (;;) {
    const rows = await query<{ stream_id: unknown; head: unknown }>(context, errorContext(context), context.sql.streams, [context.namespace, after]);
    for (const row of rows) {
      const streamId = String(row.stream_id);
      const head = revisionFromText(row.head);
      if (!isStreamId(row.stream_id) || head === null || head === 0) throw corruptStream(streamId, 'its entry in the streams table is malformed.');
      yield { streamId, head };
      after = streamId;
    }
    if (rows.length < PAGE_ROWS) return;
  }
}
