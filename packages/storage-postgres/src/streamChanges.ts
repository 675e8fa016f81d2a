import { assertStreamId } from '@roundtable/storage';
import { assertOpen } from './postgresContext.js';
import type { PostgresContext } from './postgresContext.js';

/** `PostgresStorage.changes`: once when listening starts (and after each reconnect), then on each commit to the stream, by LISTEN/NOTIFY. */
export async function* streamChanges(context: PostgresContext, streamId: string, signal: AbortSignal): AsyncGenerator<void> {
  assertOpen(context);
  assertStreamId(streamId);
  if (signal.aborted) return;
  yield* context.listener.subscribe(`${context.namespace}\n${streamId}`, signal);
}
