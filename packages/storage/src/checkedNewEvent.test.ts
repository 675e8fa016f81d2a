import type { Json } from '@roundtable/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NEW_EVENT_KEYS, assertNewEvent, checkedNewEvent, isStorageError } from './index.js';
import { prepareAppend, resolveStorageOptions, storedEventCanonicalText } from './adapter.js';
import type { NewEvent } from './index.js';

const ID = '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b';
const TIME = '2026-01-02T03:04:05.678Z';
type Fields = Parameters<typeof checkedNewEvent>;
const fields = (overrides: Partial<Record<keyof NewEvent, unknown>> = {}): Fields => {
  const all = { eventId: ID, type: 'demo:thing', version: 1, timestamp: TIME, correlationId: 'run-1', causationId: null, payload: { n: 1 }, ...overrides };
  return [all.eventId, all.type, all.version, all.timestamp, all.correlationId, all.causationId, all.payload] as Fields;
};
const literal = (args: Fields): NewEvent => {
  const [eventId, type, version, timestamp, correlationId, causationId, payload] = args;
  return Object.freeze({ eventId, type, version, timestamp, correlationId, causationId, payload });
};

/** The code and message `action` throws (nothing: null). */
function thrown(action: () => unknown): { code: string; message: string } | null {
  try {
    action();
    return null;
  } catch (error) {
    if (!isStorageError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe('checkedNewEvent', () => {
  afterEach(() => vi.restoreAllMocks());

  it('builds a frozen plain event with exactly the fields, equal to the literal and with the same canonical text', () => {
    const built = checkedNewEvent(...fields({ causationId: 'cause-1' }));
    expect(Object.isFrozen(built)).toBe(true);
    expect(Object.getPrototypeOf(built)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(built).sort()).toEqual([...NEW_EVENT_KEYS].sort());
    // The stamp is invisible to reflection and JSON.
    expect(Object.getOwnPropertySymbols(built)).toEqual([]);
    expect(built).toStrictEqual(literal(fields({ causationId: 'cause-1' })));
    expect(JSON.stringify(built)).toBe(JSON.stringify(literal(fields({ causationId: 'cause-1' }))));
    expect(structuredClone(built)).toEqual(built);
  });

  it('is not reflected on again by assertNewEvent or an append preflight, whose results are those of an event built elsewhere', () => {
    const built = checkedNewEvent(...fields());
    const spy = vi.spyOn(Object, 'getOwnPropertyDescriptor');
    assertNewEvent(built);
    const prepared = prepareAppend(resolveStorageOptions({}), 'run-1', 0, [built]);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    const other = prepareAppend(resolveStorageOptions({}), 'run-1', 0, [{ ...literal(fields()) }]);
    expect(prepared.events).toEqual(other.events);
    expect(prepared.events.map(storedEventCanonicalText)).toEqual(other.events.map(storedEventCanonicalText));
  });

  it('leaves an event whose fields are off unchecked: assertNewEvent and the preflight refuse it with the same error as any other', () => {
    const offs: Partial<Record<keyof NewEvent, unknown>>[] = [
      { eventId: '' },
      { eventId: ' padded' },
      { eventId: 'x'.repeat(257) },
      { eventId: 'lone \ud800 surrogate' },
      { type: 'a\u0000b' },
      { version: 0 },
      { version: 1.5 },
      { version: '1' },
      { timestamp: '2026-02-30T00:00:00.000Z' },
      { timestamp: 'yesterday' },
      { correlationId: '' },
      { causationId: '' },
      { causationId: 7 },
    ];
    for (const off of offs) {
      const built = checkedNewEvent(...fields(off));
      const expected = thrown(() => assertNewEvent(literal(fields(off))));
      expect(expected?.code).toBe('INVALID_STORED_VALUE');
      expect(thrown(() => assertNewEvent(built))).toEqual(expected);
      expect(thrown(() => prepareAppend(resolveStorageOptions({}), 'run-1', 0, [built]))).toEqual(
        thrown(() => prepareAppend(resolveStorageOptions({}), 'run-1', 0, [literal(fields(off))])),
      );
    }
  });

  it('still has its payload checked: a payload that is not JSON is refused', () => {
    const payloads: unknown[] = [{ n: undefined }, { f: () => 1 }, [Number.NaN], Object.defineProperty({}, 'x', { get: () => 1, enumerable: true })];
    for (const payload of payloads) {
      const built = checkedNewEvent(...fields({ payload: payload as Json }));
      expect(thrown(() => assertNewEvent(built))?.code).toBe('INVALID_STORED_VALUE');
      expect(thrown(() => prepareAppend(resolveStorageOptions({}), 'run-1', 0, [built]))?.code).toBe('INVALID_STORED_VALUE');
    }
  });

  it('still has its id counted against the batch and the limits', () => {
    const twice = [checkedNewEvent(...fields()), checkedNewEvent(...fields())];
    expect(thrown(() => prepareAppend(resolveStorageOptions({}), 'run-1', 0, twice))?.code).toBe('DUPLICATE_EVENT_ID');
    const big = checkedNewEvent(...fields({ payload: { text: 'x'.repeat(2000) } }));
    expect(thrown(() => prepareAppend(resolveStorageOptions({ limits: { maxEventPayloadBytes: 1000 } }), 'run-1', 0, [big]))?.code).toBe('STORAGE_LIMIT_EXCEEDED');
  });
});
