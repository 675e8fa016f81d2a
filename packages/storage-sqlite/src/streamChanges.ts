import { assertStreamId } from '@roundtable/storage';
import { changeHints } from '@roundtable/storage/adapter';
import { assertOpen } from './sqliteContext.js';
import type { SqliteContext } from './sqliteContext.js';

/** `RunStorage.changes` of the SQLite adapter: hints from `PRAGMA data_version` on a connection of their own; they end on abort or close. */
export function streamChanges(context: SqliteContext, streamId: string, signal: AbortSignal): AsyncIterable<void> {
  assertOpen(context);
  assertStreamId(streamId);
  return changeHints(AbortSignal.any([signal, context.closing.signal]), (notify) => context.hints.subscribe(notify));
}
