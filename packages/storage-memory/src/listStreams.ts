import { assertOpen, streamsOf } from './memoryContext.js';
import type { MemoryContext } from './memoryContext.js';

/** `RunStorage.streams` of the memory adapter: the namespace's streams as they were at the call. */
// eslint-disable-next-line @typescript-eslint/require-await -- in memory there is nothing to await
export async function* listStreams(context: MemoryContext): AsyncGenerator<{ streamId: string; head: number }> {
  assertOpen(context);
  const listing = [...streamsOf(context, false).entries()].map(([streamId, found]) => ({ streamId, head: found.length }));
  for (const entry of listing) {
    assertOpen(context);
    yield entry;
  }
}
