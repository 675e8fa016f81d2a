import type { NewEvent } from '@roundtable/storage';
import { duplicateEventId, prepareAppend, resolveAgainstHeadSync, storedEventCanonicalText } from '@roundtable/storage/adapter';
import { notifyListeners } from './memoryBacking.js';
import { assertOpen, streamsOf } from './memoryContext.js';
import type { MemoryContext } from './memoryContext.js';
import { MemoryStream } from './memoryStream.js';

/** `RunStorage.append` of the memory adapter. */
export async function appendToStream(context: MemoryContext, streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
  assertOpen(context);
  // Before the first await: the batch is copied at the call, so later edits of the caller's
  // events change nothing.
  const prepared = prepareAppend(context.config, streamId, expectedRevision, events);
  // Commit one microtask later, as a queued write: an instance closed before then refuses it.
  // Appends through every instance of the backing commit in the order they were called, each
  // in one synchronous step, so no two ever interleave and no lock is needed.
  await Promise.resolve();
  assertOpen(context);
  const streams = streamsOf(context, true);
  const existing = streams.get(streamId);
  const decision = resolveAgainstHeadSync(prepared, existing?.length ?? 0, (from, to) => {
    const texts: string[] = [];
    for (let revision = from; revision <= to; revision++) texts.push(storedEventCanonicalText(existing!.at(revision)));
    return texts;
  });
  if (decision !== 'write') return decision;
  const duplicate = existing === undefined ? undefined : prepared.eventIds.find((eventId) => existing.hasEventId(eventId));
  if (duplicate !== undefined) throw duplicateEventId(duplicate, streamId);
  const target = existing ?? new MemoryStream(streamId);
  // prepareAppend's events are deep-frozen copies: the stream keeps their fields, not the envelopes.
  for (const event of prepared.events) target.push(event);
  if (existing === undefined) streams.set(streamId, target);
  notifyListeners(context.state, context.namespace, streamId);
  return prepared.nextHead;
}
