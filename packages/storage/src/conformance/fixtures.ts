import type { Json } from '@roundtable/core';
import { ENVELOPE_VERSION } from '../events.js';
import type { NewEvent, StoredEvent } from '../events.js';
import { appendBatchBytes, eventPayloadBytes } from '../appendBatchBytes.js';

/** A `NewEvent` the kit may edit in place (to prove the adapter kept its own copy). */
export type MutableEvent = { -readonly [K in keyof NewEvent]: NewEvent[K] };

export const TIMESTAMP = '2025-01-02T03:04:05.678Z';

/** A valid event; `payload` defaults to a small nested value so copies can be told apart from sharing. */
export function newEvent(eventId: string, payload?: Json, overrides: Partial<MutableEvent> = {}): MutableEvent {
  return {
    eventId,
    type: 'conformance:test',
    version: 1,
    timestamp: TIMESTAMP,
    correlationId: 'conformance-correlation',
    causationId: null,
    payload: payload ?? { id: eventId, nested: { list: [1, 'two', null, true], text: 'ünïcødé ✓' } },
    ...overrides,
  };
}

/** `count` valid events with ids `<prefix>-1 …`. */
export function newBatch(prefix: string, count: number): MutableEvent[] {
  return Array.from({ length: count }, (_, i) => newEvent(`${prefix}-${i + 1}`));
}

/** A deep copy of plain JSON data. */
export function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The events as storage must return them once appended at `expectedRevision`. */
export function storedEvents(streamId: string, expectedRevision: number, events: readonly NewEvent[]): StoredEvent[] {
  return events.map((event, i) => ({
    ...copyJson(event),
    envelopeVersion: ENVELOPE_VERSION,
    streamId,
    revision: expectedRevision + i + 1,
  }));
}

/** A string of exactly `bytes` UTF-8 bytes, of two-byte `é` when `multibyte` (and one `x` if odd). */
function textOfBytes(bytes: number, multibyte: boolean): string {
  if (!multibyte) return 'x'.repeat(bytes);
  return 'é'.repeat(Math.floor(bytes / 2)) + 'x'.repeat(bytes % 2);
}

/** An event whose canonical payload is exactly `bytes` UTF-8 bytes. */
export function eventWithPayloadBytes(eventId: string, bytes: number, multibyte = false): MutableEvent {
  const overhead = eventPayloadBytes({ payload: { text: '' } });
  const event = newEvent(eventId, { text: textOfBytes(bytes - overhead, multibyte) });
  const actual = eventPayloadBytes(event);
  if (actual !== bytes) throw new Error(`conformance kit bug: built a payload of ${actual} bytes, wanted ${bytes}`);
  return event;
}

/**
 * `count` events whose batch size (`appendBatchBytes`) is exactly `bytes`, no payload over
 * `maxPayloadBytes`: the padding is spread from the first event on.
 */
export function batchOfBytes(prefix: string, count: number, bytes: number, maxPayloadBytes: number): MutableEvent[] {
  const events = Array.from({ length: count }, (_, i) => newEvent(`${prefix}-${i + 1}`, { text: '' }));
  let remaining = bytes - appendBatchBytes(events);
  for (const event of events) {
    const room = maxPayloadBytes - eventPayloadBytes(event);
    const pad = Math.max(0, Math.min(room, remaining));
    event.payload = { text: 'x'.repeat(pad) };
    remaining -= pad;
  }
  const actual = appendBatchBytes(events);
  if (actual !== bytes) throw new Error(`conformance kit bug: built a batch of ${actual} bytes, wanted ${bytes}`);
  return events;
}

/** A small, fast, seedable random source (mulberry32), so a failing random case can be replayed. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SAMPLE_STRINGS = ['', 'a', 'ünïcødé', 'line\nbreak', 'quote"and\\slash', '😀 emoji', '\u2028sep', 'tab\there'];
const SAMPLE_KEYS = ['a', 'b', '10', '9', '__proto__', 'é', 'key with space', ''];

/**
 * A random JSON value, including the awkward parts: integer-like keys (which JavaScript orders
 * differently from canonical JSON), `-0`, escapes, astral characters.
 */
export function randomJson(random: () => number, depth = 0): Json {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const kind = depth >= 3 ? Math.floor(random() * 4) : Math.floor(random() * 6);
  switch (kind) {
    case 0:
      return pick([null, true, false]);
    case 1:
      return pick([0, -0, 1, -1.5, 1e21, 123456789, Number.MAX_SAFE_INTEGER, 0.1]);
    case 2:
    case 3:
      return pick(SAMPLE_STRINGS);
    case 4:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth + 1));
    default: {
      const object: Record<string, Json> = {};
      const size = Math.floor(random() * 4);
      for (let i = 0; i < size; i++) {
        // defineProperty, so `__proto__` is an own key as JSON.parse would make it.
        Object.defineProperty(object, pick(SAMPLE_KEYS), { value: randomJson(random, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return object;
    }
  }
}
