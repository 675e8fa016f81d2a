import { setImmediate as nextTurn } from 'node:timers/promises';
import { isStreamId } from '@roundtable/storage';
import { corruptStream } from '@roundtable/storage/adapter';
import { assertOpen, errorContext } from './sqliteContext.js';
import type { SqliteContext } from './sqliteContext.js';
import { withSqliteErrors } from './sqliteErrors.js';
import { PAGE_ROWS, isRevisionNumber } from './sqliteStatements.js';

/** `RunStorage.streams` of the SQLite adapter: the streams table in id order, a page at a time. */
export async function* listStreams(context: SqliteContext): AsyncGenerator<{ streamId: string; head: number }> {
  let after = '';
  for (let page = 0; ; page++) {
    if (page > 0) await nextTurn();
    assertOpen(context);
    const rows = withSqliteErrors(errorContext(context), () => context.statements.streams.all({ namespace: context.namespace, after, limit: PAGE_ROWS }));
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
