import { canonicalJson } from '@roundtable/core';
import { ENVELOPE_VERSION } from './events.js';
import type { NewEvent, StoredEvent } from './events.js';

// The canonical JSON of an event, assembled around the payload's canonical text so the payload
// is walked once. Keys in code-unit order; the other fields are checked identifiers, numbers or null.
// A checked identifier holds no control character and no lone surrogate, so only `"` and `\`
// would need escaping: without them it is quoted as it is (no JSON.stringify per field).
const field = (value: string | null) =>
  value === null ? 'null' : value.includes('"') || value.includes('\\') ? JSON.stringify(value) : `"${value}"`;

export function newEventText(event: NewEvent, payload: string): string {
  return `{"causationId":${field(event.causationId)},"correlationId":${field(event.correlationId)},"eventId":${field(event.eventId)},"payload":${payload},"timestamp":${field(event.timestamp)},"type":${field(event.type)},"version":${event.version}}`;
}

/**
 * The canonical JSON of a stored event: exactly the text `prepareAppend` gave in `texts` for
 * it, for an adapter that keeps events and not their texts (the byte-identical retry check).
 */
export function storedEventCanonicalText(event: StoredEvent): string {
  return canonicalJson(event);
}

export function storedEventText(event: NewEvent, payload: string, streamId: string, revision: number): string {
  return `{"causationId":${field(event.causationId)},"correlationId":${field(event.correlationId)},"envelopeVersion":${ENVELOPE_VERSION},"eventId":${field(event.eventId)},"payload":${payload},"revision":${revision},"streamId":${field(streamId)},"timestamp":${field(event.timestamp)},"type":${field(event.type)},"version":${event.version}}`;
}

/**
 * UTF-8 bytes of a new event's canonical text (what `maxAppendBatchBytes` counts), from the
 * bytes of its stored text, without writing it: the stored text adds exactly
 * `"envelopeVersion":1,` (20 bytes), `"revision":N,` (12 and N's digits) and `"streamId":"S",`
 * (14 and the id), all ASCII (a stream id is).
 */
export function newEventTextBytes(storedTextBytes: number, streamId: string, revision: number): number {
  return storedTextBytes - (46 + String(revision).length + streamId.length);
}
