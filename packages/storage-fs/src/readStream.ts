import { assertRevision, assertStreamId } from '@roundtable/storage';
import type { ReadOptions, StoredEvent } from '@roundtable/storage';
import { storageIoError } from '@roundtable/storage/adapter';
import { batchEvents } from './batchFile.js';
import { eventIterator } from './eventIterator.js';
import type { EventSource } from './eventIterator.js';
import { assertOpen, catchUp, stateOf } from './fsContext.js';
import type { FsContext } from './fsContext.js';

/** What `read` iterates: checks the call, then the batches holding `after + 1` up to the head when iteration starts. */
async function openRead(context: FsContext, streamId: string, options: ReadOptions): Promise<EventSource> {
  assertOpen(context);
  assertStreamId(streamId);
  const after = options?.after ?? 0;
  assertRevision(after, 'after');
  const state = stateOf(context, streamId);
  const head = await state.exclusive(async () => {
    await catchUp(context, state);
    return state.head;
  });
  const batches = after >= head ? null : state.batches(after + 1, head);
  return {
    async next() {
      const item = await batches?.next();
      if (item === undefined || item.done === true) return null;
      assertOpen(context);
      const events = batchEvents(streamId, item.value);
      state.gather(item.value, events);
      const within = events[0]!.revision > after && events.at(-1)!.revision <= head;
      return within ? events : events.filter((event) => event.revision > after && event.revision <= head);
    },
    async stop() {
      await batches?.return(undefined);
    },
  };
}

/** `RunStorage.read` of the fs adapter: nothing runs before the first `next()`; failures are mapped to STORAGE_IO_ERROR. */
export function readStream(context: FsContext, streamId: string, options: ReadOptions = {}): AsyncIterableIterator<StoredEvent> {
  return eventIterator(
    () => openRead(context, streamId, options),
    (error) => storageIoError(context.location, error),
  );
}
