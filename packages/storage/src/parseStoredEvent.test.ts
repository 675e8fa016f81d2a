import { canonicalJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newEvent } from '@roundtable/test-utils';
import { isStreamId } from './index.js';
import { decodeStoredEventRow, parseStoredEvent, prepareAppend, readStoredEvent, resolveStorageOptions } from './adapter.js';

const expected = { streamId: 's', revision: 1 };

/** A stored event's text as `prepareAppend` writes it. */
const storedText = (payload: Json): string =>
  prepareAppend(resolveStorageOptions({}), 's', 0, [{ ...newEvent('e-1', payload, { correlationId: 'corr' }) }]).texts[0]!;

/** What a reader does with a text: the event's canonical text and frozenness, or the error's name, code, message and details. */
function outcome(read: () => unknown): unknown {
  try {
    const event = read() as { payload: unknown };
    return { text: `${JSON.stringify({ ...event, payload: null })} ${canonicalJson(event.payload)}`, frozen: Object.isFrozen(event) && (typeof event.payload !== 'object' || Object.isFrozen(event.payload)) };
  } catch (error) {
    const { name, message, code, details } = error as { name: string; message: string; code?: string; details?: unknown };
    return { name, message, code, details: JSON.stringify(details ?? null) };
  }
}

const nest = (depth: number, inner: string) => '['.repeat(depth) + inner + ']'.repeat(depth);
const fields = ['causationId', 'correlationId', 'envelopeVersion', 'eventId', 'payload', 'revision', 'streamId', 'timestamp', 'type', 'version', 'extra'];
const badValues = ['null', '2', '0', '-1', '1.5', '1e999', '"x"', '" x"', '"\\ud800"', '"\\ud83d\\ude00"', '"\ud800"', '"a\\u0001"', '"bench"', '"2025-02-29T00:00:00.000Z"', '{}', '[]', nest(256, '1'), nest(257, '1'), '{"n":1e999}', '{"n":"\\udc00"}', '{"\\ud800":1}'];

/** Stored texts, valid and damaged: one field replaced by a value that may be wrong, or the text mangled (so JSON.parse may fail). */
const texts = fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...fields), fc.constantFrom(...badValues), fc.nat(6), fc.nat()).map(([payload, field, bad, how, at]) => {
  const text = storedText(payload as Json);
  if (how === 0) return text;
  if (how === 1) {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (field === 'extra') return text.replace(/}$/, `,"extra":${bad}}`);
    return text.replace(`"${field}":${JSON.stringify(parsed[field])}`, `"${field}":${bad}`);
  }
  if (how === 2) return text.replace(/"payload":/, `"payload":${nest(at % 300, '')}`).replace(/,"revision"/, `${']'.repeat(at % 300)},"revision"`);
  if (how === 3) return text.slice(0, at % text.length) + text.slice((at % text.length) + 1);
  if (how === 4) return text.replace(/"payload":/, `"payload":{"v":${bad},"w":`).replace(/,"revision"/, '},"revision"');
  return text.replace(/"eventId":"e-1"/, `"eventId":${bad}`);
});

describe('parseStoredEvent and the reads built on it', () => {
  it('accepts and refuses exactly what readStoredEvent of JSON.parse does, with the same error, code and details', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(outcome(() => parseStoredEvent(text, expected))).toEqual(outcome(() => readStoredEvent(JSON.parse(text), expected)));
        // decodeStoredEventRow (SQLite's and PostgreSQL's read) on the same body: what the old JSON.parse and readStoredEvent did, as its error says.
        const decoded = outcome(() => decodeStoredEventRow({ revision: 1, eventId: 'e-1', body: text, checksum: 'c' }, 's', 1, () => 'c')) as { message?: string; code?: string };
        const old = outcome(() => readStoredEvent(JSON.parse(text), expected)) as { name?: string; message?: string; code?: string };
        if (old.message === undefined) {
          if ((JSON.parse(text) as { eventId: unknown }).eventId === 'e-1') expect(decoded).toEqual(old);
          else expect(decoded).toMatchObject({ code: 'CORRUPT_EVENT_STREAM', message: expect.stringContaining('indexed under another event id') });
        }
        else if (old.name === 'SyntaxError') expect(decoded).toMatchObject({ code: 'CORRUPT_EVENT_STREAM', message: expect.stringContaining('revision 1 is not JSON.') });
        else if (old.code === 'UNSUPPORTED_ENVELOPE_VERSION') expect(decoded).toEqual(old);
        else expect(decoded).toMatchObject({ code: 'CORRUPT_EVENT_STREAM', message: expect.stringContaining(old.message) });
      }),
      { numRuns: 3000 },
    );
  });

  it('isStreamId remembers the last stream id it accepted, and still refuses every other value', () => {
    expect(isStreamId('run-1')).toBe(true);
    expect(isStreamId('run-1')).toBe(true);
    for (const bad of [' run-1', 'run 1', '', '-run', 'r'.repeat(129), { toString: () => 'run-1' }, ['run-1'], null]) expect(isStreamId(bad)).toBe(false);
    expect(isStreamId('run-1')).toBe(true);
    expect(() => parseStoredEvent(storedText({ n: 1 }).replace('"streamId":"s"', '"streamId":"s s"'), expected)).toThrow(/invalid streamId/);
  });
});
