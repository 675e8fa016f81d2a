import { assertRevision } from '@roundtable/storage';
import type { ReadOptions } from '@roundtable/storage';
import { assertOpen, openStream } from './memoryContext.js';
import type { MemoryContext } from './memoryContext.js';
import { memoryRead } from './memoryRead.js';
import type { MemoryRead } from './memoryRead.js';

/** `RunStorage.read` of the memory adapter: checks its arguments when iteration starts and fixes the head there (see `memoryRead`). */
export function readStream(context: MemoryContext, streamId: string, options: ReadOptions = {}): MemoryRead {
  return memoryRead({
    start: () => {
      const after = options.after ?? 0;
      assertRevision(after, 'after');
      const found = openStream(context, streamId);
      // Streams only grow, so the length now is the head this read stops at.
      return { first: after + 1, head: found?.length ?? 0, at: (revision) => found!.at(revision) };
    },
    assertOpen: () => assertOpen(context),
  });
}
