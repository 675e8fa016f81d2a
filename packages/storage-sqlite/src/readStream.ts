import { setImmediate as nextTurn } from 'node:timers/promises';
import { assertRevision, assertStreamId } from '@roundtable/storage';
import type { ReadOptions, StoredEvent } from '@roundtable/storage';
import { corruptStream, decodeStoredEventRow } from '@roundtable/storage/adapter';
import { assertOpen, errorContext } from './sqliteContext.js';
import type { SqliteContext } from './sqliteContext.js';
import { withSqliteErrors } from './sqliteErrors.js';
import { PAGE_ROWS, bodyChecksum, storedHead } from './sqliteStatements.js';

/** `RunStorage.read` of the SQLite adapter: pages of rows up to the head when iteration starts, each row checked as it is decoded. */
export async function* readStream(context: SqliteContext, streamId: string, options: ReadOptions = {}): AsyncGenerator<StoredEvent> {
  assertOpen(context);
  assertStreamId(streamId);
  const after = options.after ?? 0;
  assertRevision(after, 'after');
  const { statements, namespace } = context;
  const errors = errorContext(context, streamId);
  const head = withSqliteErrors(errors, () => storedHead(statements, namespace, streamId));
  let next = after + 1;
  while (next <= head) {
    // Between pages, let timers and I/O run: a long read must not hold the event loop.
    if (next > after + 1) await nextTurn();
    assertOpen(context);
    const rows = withSqliteErrors(errors, () => statements.page.all(namespace, streamId, next - 1, head, PAGE_ROWS));
    if (rows.length === 0) throw corruptStream(streamId, `revisions ${next} to ${head} are missing.`);
    for (const [revision, eventId, body, checksum] of rows) {
      yield decodeStoredEventRow({ revision: typeof revision === 'number' ? revision : null, eventId, body, checksum }, streamId, next, bodyChecksum);
      next++;
    }
  }
}
