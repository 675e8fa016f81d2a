import type { Json } from '@roundtable/core';
import { GraphExecutionError } from './graphExecutionError.js';

/** The part of a stored event a fold needs (a `StoredEvent` of `@roundtable/storage` is one). */
export interface RecordedEvent {
  readonly revision: number;
  readonly eventId: string;
  readonly type: string;
  readonly version: number;
  readonly payload: Json;
}

/** INVALID_EVENT naming the event that does not fit and why. */
export function invalidEvent(event: RecordedEvent, problem: string): GraphExecutionError {
  return new GraphExecutionError('INVALID_EVENT', `Event ${event.type} at revision ${event.revision}: ${problem}`, {
    details: { revision: event.revision, type: event.type, eventId: event.eventId },
  });
}

/**
 * What `foldStream` needs of a storage: `read` in revision order after `after`. Every
 * `RunStorage` of `@roundtable/storage` is one; graph does not depend on storage, so it names
 * only this method.
 */
export interface RecordReader<Event extends RecordedEvent = RecordedEvent> {
  read(streamId: string, options?: { readonly after?: number }): AsyncIterable<Event>;
}
