import { assertStreamId } from '@roundtable/storage';
import { changeHints } from '@roundtable/storage/adapter';
import { addListener } from './memoryBacking.js';
import { assertOpen } from './memoryContext.js';
import type { MemoryContext } from './memoryContext.js';

/**
 * `RunStorage.changes` of the memory adapter: told in-process the moment an append through any
 * instance of this backing commits; the hints end when the caller aborts or this instance closes.
 */
export function streamChanges(context: MemoryContext, streamId: string, signal: AbortSignal): AsyncIterable<void> {
  assertOpen(context);
  assertStreamId(streamId);
  return changeHints(AbortSignal.any([signal, context.closing.signal]), (notify) => addListener(context.state, context.namespace, streamId, notify));
}
