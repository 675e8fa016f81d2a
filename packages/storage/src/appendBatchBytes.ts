import { canonicalJson, utf8ByteLength } from '@roundtable/core';
import type { NewEvent } from './events.js';

/** UTF-8 bytes of an event's canonical payload: what `maxEventPayloadBytes` limits. */
export function eventPayloadBytes(event: Pick<NewEvent, 'payload'>): number {
  return utf8ByteLength(canonicalJson(event.payload));
}

/** Sum of the UTF-8 bytes of each event's canonical JSON: what `maxAppendBatchBytes` limits. */
export function appendBatchBytes(events: readonly NewEvent[]): number {
  return events.reduce((sum, event) => sum + utf8ByteLength(canonicalJson(event)), 0);
}
