import { canonicalJson, utf8ByteLength } from '@roundtable/core';
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

/** A character that is not ASCII, or is `"` or `\\`: a field without one is its length plus its quotes. */
// eslint-disable-next-line no-control-regex -- U+0000 starts the range: `field` quotes any value without `"` or `\\` as it is
const NOT_PLAIN_ASCII = /[^\u0000-\u0021\u0023-\u005b\u005d-\u007f]/;

/** `field` with every value empty: the ASCII text around the fields of a new event's text. */
const NEW_EVENT_SKELETON_BYTES = '{"causationId":,"correlationId":,"eventId":,"payload":,"timestamp":,"type":,"version":}'.length;

/** UTF-8 bytes of `field(value)`: its quotes, one byte per escaped `"` or `\`, and the value's own bytes. */
function fieldBytes(value: string | null): number {
  if (value === null) return 4;
  if (!NOT_PLAIN_ASCII.test(value)) return value.length + 2;
  let bytes = 2 + utf8ByteLength(value);
  if (value.includes('"') || value.includes('\\')) {
    for (let i = 0; i < value.length; i++) {
      const unit = value.charCodeAt(i);
      if (unit === 0x22 || unit === 0x5c) bytes++;
    }
  }
  return bytes;
}

/**
 * UTF-8 bytes of `newEventText(event, payload)` (what `maxAppendBatchBytes` counts) from the
 * payload's bytes, without writing the text: the event's other fields are checked identifiers,
 * a timestamp and a number, so each is its quotes, its own bytes and its escapes.
 */
export function newEventTextBytes(event: NewEvent, payloadBytes: number): number {
  return (
    NEW_EVENT_SKELETON_BYTES +
    fieldBytes(event.causationId) +
    fieldBytes(event.correlationId) +
    fieldBytes(event.eventId) +
    payloadBytes +
    // A checked timestamp is 24 ASCII digits and separators (`\d` is [0-9]), quoted as it is.
    event.timestamp.length +
    2 +
    fieldBytes(event.type) +
    (event.version < 10 ? 1 : String(event.version).length)
  );
}
