import { openStream } from './memoryContext.js';
import type { MemoryContext } from './memoryContext.js';

/** `RunStorage.head` of the memory adapter (a promise, so a bad call rejects rather than throws). */
export function readHead(context: MemoryContext, streamId: string): Promise<number> {
  return Promise.resolve().then(() => openStream(context, streamId)?.length ?? 0);
}
