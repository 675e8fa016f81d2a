import { assertStreamId } from '@roundtable/storage';
import type { ChangedStreams } from './changeListener.js';
import { assertOpen } from './postgresContext.js';
import type { PostgresContext } from './postgresContext.js';

/** `PostgresStorage.changes`: once when listening starts (and after each reconnect), then on each commit to the stream, by LISTEN/NOTIFY. */
export async function* streamChanges(context: PostgresContext, streamId: string, signal: AbortSignal): AsyncGenerator<void> {
  assertOpen(context);
  assertStreamId(streamId);
  if (signal.aborted) return;
  yield* context.listener.subscribe(`${context.namespace}\n${streamId}`, signal);
}

/** `PostgresStorage.changedStreams`: `{ all: true }` when listening starts (and after each reconnect), then the streams of the namespace with commits since the last batch. */
export async function* namespaceChanges(context: PostgresContext, signal: AbortSignal): AsyncGenerator<ChangedStreams> {
  assertOpen(context);
  if (signal.aborted) return;
  yield* context.listener.subscribeNamespace(context.namespace, signal);
}
