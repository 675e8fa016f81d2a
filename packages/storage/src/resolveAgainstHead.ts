import { revisionConflict } from './errors.js';
import type { PreparedAppend } from './prepareAppend.js';

/**
 * The rule every adapter applies, under its own exclusion, once it knows the current head:
 * - head equals the expected revision: go on (then check stream-wide duplicate ids);
 * - the events already committed at expected+1 … expected+n are byte-identical to the batch: a
 *   retry of a committed append, so return that batch's head and write nothing;
 * - otherwise REVISION_CONFLICT with both revisions.
 * `committedTexts` reads the canonical text of stored events in a revision range (inclusive);
 * it is called only when the head is at or past the batch's end.
 */
export function resolveAgainstHeadSync(prepared: PreparedAppend, head: number, committedTexts: (from: number, to: number) => readonly string[]): 'write' | number {
  if (head === prepared.expectedRevision) return 'write';
  if (head >= prepared.nextHead) {
    const committed = committedTexts(prepared.expectedRevision + 1, prepared.nextHead);
    if (committed.length === prepared.texts.length && committed.every((text, i) => text === prepared.texts[i])) return prepared.nextHead;
  }
  throw revisionConflict(prepared.expectedRevision, head);
}

/** `resolveAgainstHeadSync` for an adapter that reads committed texts asynchronously. */
export async function resolveAgainstHead(
  prepared: PreparedAppend,
  head: number,
  committedTexts: (from: number, to: number) => Promise<readonly string[]> | readonly string[],
): Promise<'write' | number> {
  const retry = head !== prepared.expectedRevision && head >= prepared.nextHead;
  const committed = retry ? await committedTexts(prepared.expectedRevision + 1, prepared.nextHead) : [];
  return resolveAgainstHeadSync(prepared, head, () => committed);
}
