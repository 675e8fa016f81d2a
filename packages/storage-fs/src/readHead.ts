import { assertStreamId } from '@roundtable/storage';
import { assertOpen, catchUp, stateOf } from './fsContext.js';
import type { FsContext } from './fsContext.js';

/** The head of a stream as on disk now (`RunStorage.head` of the fs adapter, before its error mapping). */
export async function readHead(context: FsContext, streamId: string): Promise<number> {
  assertOpen(context);
  assertStreamId(streamId);
  const state = stateOf(context, streamId);
  return state.exclusive(async () => {
    await catchUp(context, state);
    return state.head;
  });
}
