import { assertStreamId } from '@roundtable/storage';
import { assertOpen, errorContext } from './sqliteContext.js';
import type { SqliteContext } from './sqliteContext.js';
import { withSqliteErrors } from './sqliteErrors.js';
import { storedHead } from './sqliteStatements.js';

/** `RunStorage.head` of the SQLite adapter: synchronous work as a promise, so a thrown error becomes a rejection. */
export function readHead(context: SqliteContext, streamId: string): Promise<number> {
  return new Promise((resolve) => {
    assertOpen(context);
    assertStreamId(streamId);
    resolve(withSqliteErrors(errorContext(context, streamId), () => storedHead(context.statements, context.namespace, streamId)));
  });
}
