import { assertStreamId } from '@roundtable/storage';
import { changeHints } from '@roundtable/storage/adapter';
import { assertOpen, stateOf } from './fsContext.js';
import type { FsContext } from './fsContext.js';
import { watchStreamFolder } from './watchStreamFolder.js';

/**
 * `RunStorage.changes` of the fs adapter: a watch of the stream's folder (of the namespace
 * folder until the stream folder exists). The hints end when `signal` aborts or this instance
 * closes. Where the platform cannot watch, no hint comes and followers poll.
 */
export function streamChanges(context: FsContext, streamId: string, signal: AbortSignal): AsyncIterable<void> {
  assertOpen(context);
  assertStreamId(streamId);
  const folder = stateOf(context, streamId).folder;
  return changeHints(AbortSignal.any([signal, context.closing.signal]), (notify) => watchStreamFolder(folder, notify));
}
