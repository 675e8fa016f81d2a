import { canonicalJson, copyFrozenJson, isIdentifier, isWellFormedString } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newEvent } from '@roundtable/test-utils';
import {
  DEFAULT_STORAGE_LIMITS,
  MIN_KNOWN_SECRET_LENGTH,
  appendBatchBytes,
  assertNewEvent,
  assertStoredEvent,
  eventPayloadBytes,
  isStorageError,
} from './index.js';
import { prepareAppend, readStoredEvent, storedEventCanonicalText, resolveAgainstHead, resolveStorageOptions } from './adapter.js';
import type { NewEvent, StorageError, StorageErrorCode } from './index.js';
import type { StorageConfig } from './adapter.js';

const event = (eventId: string, payload: Json = { n: 1 }, overrides: Partial<Record<keyof NewEvent, unknown>> = {}): NewEvent =>
  ({ ...newEvent(eventId, payload, { correlationId: 'corr' }), ...overrides }) as NewEvent;

const config = (options: Parameters<typeof resolveStorageOptions>[0] = {}): StorageConfig => resolveStorageOptions(options);

/** The error `action` throws; fails the test unless it is a storage error with `code`. */
function refusal(action: () => unknown, code: StorageErrorCode): StorageError {
  try {
    action();
  } catch (error) {
    if (isStorageError(error, code)) return error;
    throw new Error(`expected ${code}, got ${String(error)}`, { cause: error });
  }
  throw new Error(`expected ${code}, but nothing was thrown`);
}

describe('resolveStorageOptions', () => {
  it('applies the defaults', () => {
    expect(config()).toEqual({ namespace: 'default', limits: DEFAULT_STORAGE_LIMITS, knownSecrets: [], readOnly: false });
    expect(DEFAULT_STORAGE_LIMITS).toEqual({ maxEventPayloadBytes: 262_144, maxAppendBatchBytes: 1_048_576 });
  });

  it.each([
    [{ namespace: '' }],
    [{ namespace: '../up' }],
    [{ limits: { maxEventPayloadBytes: 0 } }],
    [{ limits: { maxAppendBatchBytes: 1.5 } }],
    [{ knownSecrets: [''] }],
    [{ knownSecrets: 'secret' as unknown as string[] }],
    [{ readOnly: 'yes' as unknown as boolean }],
    [{ readOnly: 1 as unknown as boolean }],
  ])('refuses %j with INVALID_STORAGE_OPTIONS', (options) => {
    refusal(() => config(options), 'INVALID_STORAGE_OPTIONS');
  });

  it.each([
    ['7 characters', ['1234567']],
    ['7 characters padded with spaces', ['   1234567   ']],
    ['only whitespace', ['\t\n          ']],
    ['7 astral characters (14 UTF-16 code units)', ['😀'.repeat(7)]],
    ['a short entry after a long one', ['long-enough-secret', 'short-1']],
    ['a lone surrogate', ['long-enough-\ud800']],
    ['a number', [123_456_789]],
    ['a hole', new Array<string>(1)],
  ])('refuses known secrets with %s (SPEC 11.2), naming the entry by index only', (_label, knownSecrets) => {
    const error = refusal(() => config({ knownSecrets: knownSecrets as string[] }), 'INVALID_STORAGE_OPTIONS');
    expect(error.message).toMatch(/knownSecrets\[\d\]/);
    for (const secret of knownSecrets) if (typeof secret === 'string' && secret.trim() !== '') expect(error.message).not.toContain(secret.trim());
  });

  it('accepts known secrets of 8 characters after trimming, and keeps them as given', () => {
    expect(MIN_KNOWN_SECRET_LENGTH).toBe(8);
    const secrets = ['12345678', '  abcdefgh  ', '😀'.repeat(8)];
    expect(config({ knownSecrets: secrets }).knownSecrets).toEqual(secrets);
  });
});

describe('prepareAppend', () => {
  it('refuses every append of a read-only instance first, whatever the batch, and names no input', () => {
    const readOnly = config({ readOnly: true, knownSecrets: ['a-known-secret'] });
    for (const [streamId, expectedRevision, events] of [['run-1', 0, [event('a')]], ['not a stream id!', -1, []], ['run-a-known-secret', 0, [event('a')]]] as const) {
      const error = refusal(() => prepareAppend(readOnly, streamId, expectedRevision, events), 'STORAGE_READ_ONLY');
      expect(error.message).toBe('This storage was opened with readOnly: true, which never appends; nothing was written.');
    }
    expect(prepareAppend(config({ readOnly: false }), 'run-1', 0, [event('a')]).nextHead).toBe(1);
  });

  it('returns deep copies, canonical texts, revisions and the next head', () => {
    const events = [event('a', { z: 1, a: [1, { y: -0 }] }), event('b')];
    const prepared = prepareAppend(config(), 'run-1', 4, events);
    expect(prepared.nextHead).toBe(6);
    expect(prepared.eventIds).toEqual(['a', 'b']);
    expect(prepared.events.map((stored) => stored.revision)).toEqual([5, 6]);
    expect(prepared.events[0]).toEqual({ ...events[0], payload: { z: 1, a: [1, { y: 0 }] }, envelopeVersion: 1, streamId: 'run-1', revision: 5 });
    expect(prepared.texts).toEqual(prepared.events.map((stored) => canonicalJson(stored)));
    (events[0]!.payload as { a: unknown[] }).a.push('later');
    expect(prepared.events[0]!.payload).toEqual({ z: 1, a: [1, { y: 0 }] });
  });

  it('writes the texts when they are first read, as they were at the call, whatever the caller changed since', () => {
    const events = [event('a', { z: 1, a: [1, { y: -0 }] }), event('b')];
    const expected = events.map((item, index) => canonicalJson({ ...item, payload: JSON.parse(canonicalJson(item.payload)) as Json, envelopeVersion: 1, streamId: 'run-1', revision: 5 + index }));
    const prepared = prepareAppend(config(), 'run-1', 4, events);
    (events[0]!.payload as { a: unknown[] }).a.push('later');
    (events[1] as { type: string }).type = 'changed';
    expect(prepared.texts).toEqual(expected);
    expect(prepared.texts).toBe(prepared.texts);
  });

  it('checks the envelope of an event again unless assertNewEvent accepted it frozen, and always checks its payload', () => {
    const open = event('a');
    assertNewEvent(open);
    (open as { version: unknown }).version = 0;
    expect(refusal(() => prepareAppend(config(), 's', 0, [open]), 'INVALID_STORED_VALUE').details).toMatchObject({ field: 'version' });
    const frozen = Object.freeze(event('b'));
    assertNewEvent(frozen);
    expect(prepareAppend(config(), 's', 0, [frozen]).texts[0]).toBe(canonicalJson({ ...frozen, envelopeVersion: 1, streamId: 's', revision: 1 }));
    const payload: Record<string, unknown> = { n: 1 };
    const shell = Object.freeze(event('c', payload as Json));
    assertNewEvent(shell);
    payload['when'] = new Date(0);
    expect(refusal(() => prepareAppend(config(), 's', 0, [shell]), 'INVALID_STORED_VALUE').details).toMatchObject({ field: 'payload' });
    // Accepted frozen, it is still measured, screened and checked for duplicates like any other.
    expect(refusal(() => prepareAppend(config(), 's', 0, [frozen, frozen]), 'DUPLICATE_EVENT_ID').details).toEqual({ eventId: 'b' });
    expect(refusal(() => prepareAppend(config({ limits: { maxEventPayloadBytes: 6 } }), 's', 0, [frozen]), 'STORAGE_LIMIT_EXCEEDED').details).toMatchObject({ limit: 'maxEventPayloadBytes' });
  });

  it.each([
    ['a bad stream id', () => prepareAppend(config(), 'a/b', 0, [event('a')])],
    ['a negative expected revision', () => prepareAppend(config(), 's', -1, [event('a')])],
    ['an empty batch', () => prepareAppend(config(), 's', 0, [])],
    ['a sparse batch', () => prepareAppend(config(), 's', 0, new Array<NewEvent>(2))],
    ['an extra field', () => prepareAppend(config(), 's', 0, [{ ...event('a'), extra: 1 } as NewEvent])],
    ['version 0', () => prepareAppend(config(), 's', 0, [event('a', null, { version: 0 })])],
    ['a timestamp without milliseconds', () => prepareAppend(config(), 's', 0, [event('a', null, { timestamp: '2025-01-02T03:04:05Z' })])],
    ['an id of 257 bytes', () => prepareAppend(config(), 's', 0, [event('x'.repeat(257))])],
    ['a non-JSON payload', () => prepareAppend(config(), 's', 0, [event('a', { at: new Date(0) } as unknown as Json)])],
  ])('refuses %s with INVALID_STORED_VALUE', (_label, action) => {
    refusal(action, 'INVALID_STORED_VALUE');
  });

  it('writes texts equal to the canonical JSON of the stored events and of the new events (property)', () => {
    const id = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => isIdentifier(s));
    fc.assert(
      fc.property(fc.array(fc.record({ eventId: id, payload: fc.jsonValue(), causationId: fc.option(id), version: fc.integer({ min: 1, max: 2 ** 40 }) }), { minLength: 1, maxLength: 4 }), fc.nat({ max: 2 ** 40 }), (specs, head) => {
        const ids = new Set(specs.map((spec) => spec.eventId));
        fc.pre(ids.size === specs.length);
        const events = specs.map((spec) => event(spec.eventId, spec.payload as Json, { causationId: spec.causationId, version: spec.version }));
        const prepared = prepareAppend(resolveStorageOptions(), 'stream-1', head, events);
        prepared.texts.forEach((text, i) => {
          expect(text).toBe(canonicalJson(prepared.events[i]));
          expect(JSON.parse(text)).toEqual({ ...JSON.parse(canonicalJson(events[i])), envelopeVersion: 1, streamId: 'stream-1', revision: head + i + 1 });
        });
        expect(appendBatchBytes(events)).toBe(events.reduce((sum, e) => sum + new TextEncoder().encode(canonicalJson(e)).length, 0));
      }),
    );
  });

  it('quotes identifiers holding a quote, a backslash or non-ASCII exactly as canonical JSON does', () => {
    const ids = ['say "hi"', 'back\\slash', 'both \\"', 'a\u2028b\u2029c', 'é😀', 'plain'];
    const events = ids.map((id, i) => event(id, { i }, { type: `t${id}`, correlationId: `c${id}`, causationId: i % 2 === 0 ? `x${id}` : null }));
    const prepared = prepareAppend(resolveStorageOptions(), 'stream-1', 0, events);
    prepared.texts.forEach((text, i) => {
      expect(text).toBe(canonicalJson(prepared.events[i]));
      expect(JSON.parse(text)).toMatchObject({ eventId: ids[i], type: `t${ids[i]}`, correlationId: `c${ids[i]}` });
    });
  });

  it('refuses a class instance or a getter as INVALID_STORED_VALUE, not a bare JSON error', () => {
    class Event {
      constructor() {
        Object.assign(this, event('a'));
      }
    }
    refusal(() => prepareAppend(config(), 's', 0, [new Event() as NewEvent]), 'INVALID_STORED_VALUE');
    const withGetter = { ...event('a') };
    Object.defineProperty(withGetter, 'payload', { get: () => ({ n: 1 }), enumerable: true });
    refusal(() => prepareAppend(config(), 's', 0, [withGetter]), 'INVALID_STORED_VALUE');
  });

  it('refuses a lone surrogate in any identifier field or anywhere in the payload with INVALID_STORED_VALUE', () => {
    for (const text of ['\ud800', 'a\udc00', '\ude00\ud83d', 'end\udbff']) {
      for (const field of ['eventId', 'type', 'correlationId', 'causationId'] as const) {
        const error = refusal(() => prepareAppend(config(), 's', 0, [event('ok'), event('a', null, { [field]: text })]), 'INVALID_STORED_VALUE');
        expect(error.details).toMatchObject({ field });
      }
      for (const payload of [text, { text }, { [text]: 1 }, { list: [[text]] }]) {
        expect(refusal(() => prepareAppend(config(), 's', 0, [event('a', payload as Json)]), 'INVALID_STORED_VALUE').details).toMatchObject({ field: 'payload' });
      }
    }
  });

  it('accepts an identifier exactly when it is a well-formed identifier of at most 256 UTF-8 bytes, and stores it unchanged (property)', () => {
    // Code units of every kind: lone surrogates included, and valid pairs from the 'binary' unit.
    const unit = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
      fc.constantFrom(' ', '\u0000', '\u001f', '\u007f', '\u0085', '\u2028', '\ufeff', '\uffff', 'é', '😀'),
    );
    const text = fc.oneof(fc.string({ unit, minLength: 0, maxLength: 12 }), fc.string({ unit, minLength: 60, maxLength: 130 }));
    const field = fc.constantFrom('eventId', 'type', 'correlationId', 'causationId');
    fc.assert(
      fc.property(text, field, (value, name) => {
        const valid = isIdentifier(value) && isWellFormedString(value) && new TextEncoder().encode(value).length <= 256;
        const candidate = event(name === 'eventId' ? value : 'id', { text: value.replace(/[\ud800-\udfff]/g, '?') }, name === 'eventId' ? {} : { [name]: value });
        let stored: NewEvent | undefined;
        try {
          stored = prepareAppend(config(), 's', 0, [candidate]).events[0];
        } catch (error) {
          expect(isStorageError(error, 'INVALID_STORED_VALUE')).toBe(true);
        }
        expect(stored !== undefined).toBe(valid);
        if (stored !== undefined) expect(stored[name]).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts ids of exactly 256 UTF-8 bytes', () => {
    expect(prepareAppend(config(), 's', 0, [event('é'.repeat(128))]).nextHead).toBe(1);
  });

  it('counts the bytes of ids of three-byte characters: 85 of them (255 bytes) pass, 86 (258 bytes) are refused', () => {
    expect(prepareAppend(config(), 's', 0, [event('€'.repeat(85))]).nextHead).toBe(1);
    expect(refusal(() => prepareAppend(config(), 's', 0, [event('€'.repeat(86))]), 'INVALID_STORED_VALUE').details).toMatchObject({ field: 'eventId' });
    expect(refusal(() => prepareAppend(config(), 's', 0, [event('a', null, { type: `${'€'.repeat(85)}ab` })]), 'INVALID_STORED_VALUE').details).toMatchObject({ field: 'type' });
  });

  it('refuses a bad identifier right after accepting a good one like it, in every field', () => {
    for (const field of ['eventId', 'type', 'correlationId', 'causationId'] as const) {
      for (const bad of ['same ', ' same', 'sa\u0000me', 'same\ud800', '€'.repeat(86)]) {
        const good = bad.replace(/[^a-z€]/g, '').slice(0, 85) || 'same';
        expect(prepareAppend(config(), 's', 0, [event('g', null, { [field]: good })]).nextHead).toBe(1);
        const error = refusal(() => prepareAppend(config(), 's', 0, [event('g', null, { [field]: good }), event('b', null, { [field]: bad })]), 'INVALID_STORED_VALUE');
        expect(error.details).toMatchObject({ field });
      }
    }
  });

  it('refuses a bad timestamp right after accepting a good one, in one batch and across batches', () => {
    const good = '2024-02-29T23:59:59.999Z';
    for (const bad of ['2023-02-29T00:00:00.000Z', '2024-02-29T24:00:00.000Z', '', '2024-02-29T23:59:59.999']) {
      const error = refusal(() => prepareAppend(config(), 's', 0, [event('a', null, { timestamp: good }), event('b', null, { timestamp: bad })]), 'INVALID_STORED_VALUE');
      expect(error.details).toMatchObject({ field: 'timestamp' });
      expect(prepareAppend(config(), 's', 0, [event('c', null, { timestamp: good })]).nextHead).toBe(1);
      expect(refusal(() => prepareAppend(config(), 's', 0, [event('d', null, { timestamp: bad })]), 'INVALID_STORED_VALUE').details).toMatchObject({ field: 'timestamp' });
    }
  });

  it('refuses an id twice in the batch with DUPLICATE_EVENT_ID', () => {
    const error = refusal(() => prepareAppend(config(), 's', 0, [event('a'), event('b'), event('a')]), 'DUPLICATE_EVENT_ID');
    expect(error.details).toEqual({ eventId: 'a' });
    // Small batches compare ids one by one, larger ones keep a set: both refuse the first repeat.
    for (const size of [8, 9, 40]) {
      const ids = Array.from({ length: size }, (_, index) => `e${index}`);
      expect(prepareAppend(config(), 's', 0, ids.map((id) => event(id))).nextHead).toBe(size);
      const repeated = [...ids.slice(0, size - 1), ids[size - 3]!];
      expect(refusal(() => prepareAppend(config(), 's', 0, repeated.map((id) => event(id))), 'DUPLICATE_EVENT_ID').details).toEqual({ eventId: ids[size - 3] });
    }
  });

  it('says a field is missing or extra only of a plain data object, and checks both in any order of the fields', () => {
    const { payload: _payload, ...missing } = event('a');
    const swapped = { ...missing, extra: 1 };
    const withGetter = { ...event('a'), extra: 1 };
    Object.defineProperty(withGetter, 'type', { get: () => 't', enumerable: true });
    const hidden = event('a');
    Object.defineProperty(hidden, 'payload', { value: null, enumerable: false });
    const reordered = Object.fromEntries(Object.entries(event('a')).reverse()) as unknown as NewEvent;
    expect(refusal(() => prepareAppend(config(), 's', 0, [missing as NewEvent]), 'INVALID_STORED_VALUE').message).toMatch(/exactly the fields/);
    expect(refusal(() => prepareAppend(config(), 's', 0, [swapped as unknown as NewEvent]), 'INVALID_STORED_VALUE').message).toMatch(/exactly the fields/);
    expect(refusal(() => prepareAppend(config(), 's', 0, [withGetter]), 'INVALID_STORED_VALUE').message).toMatch(/plain object with data properties only/);
    expect(refusal(() => prepareAppend(config(), 's', 0, [hidden]), 'INVALID_STORED_VALUE').message).toMatch(/plain object with data properties only/);
    expect(prepareAppend(config(), 's', 0, [reordered]).nextHead).toBe(1);
  });

  it('passes a payload of exactly the limit and refuses one byte more', () => {
    const limits = { maxEventPayloadBytes: 100, maxAppendBatchBytes: 10_000 };
    // `{"text":"…"}` is 11 bytes around the text; `é` is two bytes, so count bytes, not characters.
    for (const wide of [false, true]) {
      const text = (bytes: number) => (wide ? 'é'.repeat(Math.floor((bytes - 11) / 2)) + 'x'.repeat((bytes - 11) % 2) : 'x'.repeat(bytes - 11));
      const atLimit = event('a', { text: text(100) });
      const overLimit = event('a', { text: text(101) });
      expect(eventPayloadBytes(atLimit)).toBe(100);
      expect(eventPayloadBytes(overLimit)).toBe(101);
      expect(prepareAppend(config({ limits }), 's', 0, [atLimit]).nextHead).toBe(1);
      const error = refusal(() => prepareAppend(config({ limits }), 's', 0, [overLimit]), 'STORAGE_LIMIT_EXCEEDED');
      expect(error.details).toMatchObject({ limit: 'maxEventPayloadBytes', bytes: 101, max: 100 });
    }
  });

  it('passes a batch of exactly the limit and refuses one byte more', () => {
    const plain = [event('a', { text: 'x' }), event('b', { text: 'y' })];
    // Quotes and backslashes are escaped in the text (a byte each), wide characters take more bytes.
    const escaped = [event('say "hi"', { text: 'é' }, { type: 'back\\slash', causationId: 'both \\"' }), event('é😀', { text: '😀' }, { correlationId: 'a\u2028b' })];
    for (const batch of [plain, escaped]) {
      const bytes = appendBatchBytes(batch);
      expect(bytes).toBe(batch.reduce((sum, item) => sum + new TextEncoder().encode(canonicalJson(item)).length, 0));
      expect(prepareAppend(config({ limits: { maxAppendBatchBytes: bytes } }), 's', 0, batch).nextHead).toBe(2);
      const error = refusal(() => prepareAppend(config({ limits: { maxAppendBatchBytes: bytes - 1 } }), 's', 0, batch), 'STORAGE_LIMIT_EXCEEDED');
      expect(error.details).toMatchObject({ limit: 'maxAppendBatchBytes', bytes, max: bytes - 1 });
    }
  });

  it('measures a batch by its new events\' canonical JSON at any stream id, revision and content', () => {
    const id = fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
      fc.string({ unit: fc.constantFrom('"', '\\', 'é', '😀', 'a', ' '), minLength: 1, maxLength: 12 }),
    ).filter((s) => isIdentifier(s) && isWellFormedString(s));
    const streamId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
    fc.assert(
      fc.property(fc.array(fc.record({ eventId: id, type: id, payload: fc.jsonValue(), causationId: fc.option(id) }), { minLength: 1, maxLength: 4 }), streamId, fc.nat({ max: 2 ** 40 }), (specs, stream, head) => {
        const batch = specs.map((spec, i) => event(`${i}-${spec.eventId}`, spec.payload as Json, { type: spec.type, causationId: spec.causationId }));
        const bytes = appendBatchBytes(batch);
        expect(prepareAppend(config({ limits: { maxAppendBatchBytes: bytes, maxEventPayloadBytes: 2 ** 30 } }), stream, head, batch).nextHead).toBe(head + batch.length);
        const error = refusal(() => prepareAppend(config({ limits: { maxAppendBatchBytes: bytes - 1, maxEventPayloadBytes: 2 ** 30 } }), stream, head, batch), 'STORAGE_LIMIT_EXCEEDED');
        expect(error.details).toMatchObject({ limit: 'maxAppendBatchBytes', bytes });
      }),
      { numRuns: 200 },
    );
  });
});

describe('known secret screening', () => {
  const secrets = ['sk-PLAIN-1234', 'two\nlines', 'a "quoted" one', 'esc\\"aped', 'abcd/efgh'];
  const leakForms = secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]);
  const screened = config({ knownSecrets: secrets });

  /** Fails if the error's message or details hold any secret, raw or escaped. */
  function expectNoLeak(error: StorageError): void {
    const text = `${error.message} ${JSON.stringify(error.details ?? null)} ${error.cause instanceof Error ? error.cause.message : ''}`;
    for (const form of leakForms) expect(text).not.toContain(form);
  }

  it.each([
    ['in a payload string', 's', event('a', { deep: ['x', 'key sk-PLAIN-1234 here'] })],
    ['in a payload key', 's', event('a', { 'sk-PLAIN-1234': 1 })],
    ['with a newline', 's', event('a', { text: 'two\nlines' })],
    ['with a newline, in a key', 's', event('a', { 'two\nlines': true })],
    ['with quotes', 's', event('a', ['a "quoted" one'])],
    ['given escaped, present in the written bytes', 's', event('a', { text: 'esc"aped' })],
    ['in the event id', 's', event('id-sk-PLAIN-1234')],
    ['in the type', 's', event('a', null, { type: 'sk-PLAIN-1234' })],
    ['in the stream id', 'run-sk-PLAIN-1234', event('a')],
    ['spelled by a path of keys', 's', event('a', { abcd: { efgh: 'abcd/efgh' } })],
  ])('refuses a secret %s with KNOWN_SECRET, without repeating it', (_label, streamId, candidate) => {
    const error = refusal(() => prepareAppend(screened, streamId, 0, [event('clean'), candidate]), 'KNOWN_SECRET');
    expect(error.details).toMatchObject(streamId === 's' ? { index: 1 } : { field: 'streamId' });
    expectNoLeak(error);
  });

  it('does not repeat a secret in other refusals that quote the input', () => {
    expectNoLeak(refusal(() => prepareAppend(screened, 'bad/sk-PLAIN-1234', 0, [event('a')]), 'INVALID_STORED_VALUE'));
    expectNoLeak(refusal(() => prepareAppend(screened, 's', 0, [event('a', { 'two\nlines': undefined } as unknown as Json)]), 'INVALID_STORED_VALUE'));
    expectNoLeak(refusal(() => prepareAppend(screened, 's', 0, [event('a', { 'a "quoted" one': [1, () => 2] } as unknown as Json)]), 'INVALID_STORED_VALUE'));
  });

  it('screens each event on its own: a secret split across two events of one batch is accepted (README: per event)', () => {
    const halves = [event('a', { text: 'sk-PLA' }), event('b', { text: 'IN-1234' })];
    expect(prepareAppend(screened, 's', 0, halves).nextHead).toBe(2);
    refusal(() => prepareAppend(screened, 's', 0, [event('c', { text: 'sk-PLA' + 'IN-1234' })]), 'KNOWN_SECRET');
  });

  it('lets through text that only comes near a secret', () => {
    const near = event('a', { text: 'sk-PLAIN-123', other: 'two lines', quote: 'a quoted one', esc: 'esc\\aped' });
    expect(prepareAppend(screened, 's', 0, [near]).nextHead).toBe(1);
  });

  it('finds a secret wherever it is put in any JSON payload, and never repeats it', () => {
    const secret = 'Zx"9\nq\\u';
    const options = config({ knownSecrets: [secret] });
    const withSecret = fc
      .tuple(fc.jsonValue(), fc.string(), fc.string(), fc.boolean())
      .map(([value, before, after, asKey]) => {
        const text = `${before}${secret}${after}`;
        return (asKey ? { [text]: value, other: value } : { other: value, list: [value, text] }) as Json;
      });
    fc.assert(
      fc.property(withSecret, (payload) => {
        const error = refusal(() => prepareAppend(options, 's', 0, [event('a', payload)]), 'KNOWN_SECRET');
        const text = `${error.message} ${JSON.stringify(error.details)}`;
        expect(text).not.toContain(secret);
        expect(text).not.toContain(JSON.stringify(secret).slice(1, -1));
      }),
      { numRuns: 200 },
    );
  });
});

describe('resolveAgainstHead', () => {
  const prepared = prepareAppend(config(), 's', 2, [event('c'), event('d')]);
  const committed = ['one', 'two', ...prepared.texts, 'five'];
  const texts = (from: number, to: number) => committed.slice(from - 1, to);

  it('writes when the head is the expected revision', async () => {
    await expect(resolveAgainstHead(prepared, 2, texts)).resolves.toBe('write');
  });

  it('returns the batch head for a byte-identical retry, even after later batches', async () => {
    await expect(resolveAgainstHead(prepared, 4, texts)).resolves.toBe(4);
    await expect(resolveAgainstHead(prepared, 5, texts)).resolves.toBe(4);
  });

  it('is REVISION_CONFLICT otherwise, with both revisions', async () => {
    const differs = (from: number, to: number) => texts(from, to).map((text) => `${text} `);
    for (const [head, read] of [[1, texts], [3, texts], [5, differs]] as const) {
      const error = await resolveAgainstHead(prepared, head, read).then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(isStorageError(error, 'REVISION_CONFLICT')).toBe(true);
      expect((error as StorageError).details).toEqual({ expectedRevision: 2, actualRevision: head });
    }
  });
});

describe('assertStoredEvent', () => {
  const stored = prepareAppend(config(), 's', 0, [event('a')]).events[0]!;

  it('accepts what prepareAppend stores, at its place', () => {
    expect(() => assertStoredEvent(JSON.parse(JSON.stringify(stored)), { streamId: 's', revision: 1 })).not.toThrow();
  });

  it('refuses another envelope version with UNSUPPORTED_ENVELOPE_VERSION and anything off with INVALID_STORED_VALUE', () => {
    refusal(() => assertStoredEvent({ ...stored, envelopeVersion: 2 }), 'UNSUPPORTED_ENVELOPE_VERSION');
    refusal(() => assertStoredEvent({ ...stored, revision: 0 }), 'INVALID_STORED_VALUE');
    refusal(() => assertStoredEvent(stored, { streamId: 's', revision: 2 }), 'INVALID_STORED_VALUE');
    refusal(() => assertStoredEvent({ ...stored, extra: true }), 'INVALID_STORED_VALUE');
  });
});

describe('the stored events of prepareAppend and readStoredEvent (one walk per value)', () => {
  it('returns deep-frozen stored events that share the caller\'s frozen parts, with their texts', () => {
    const saved = copyFrozenJson({ text: 'hi', list: [1] });
    const payload = { saved, b: { n: 1 } };
    const prepared = prepareAppend(config(), 's', 0, [event('a', payload)]);
    const stored = prepared.events[0]!;
    expect(Object.isFrozen(stored) && Object.isFrozen(stored.payload)).toBe(true);
    expect((stored.payload as { saved: Json }).saved).toBe(saved);
    expect(Object.keys(stored)).toEqual([...Object.keys(stored)].sort());
    expect(storedEventCanonicalText(stored)).toBe(prepared.texts[0]);
    payload.b.n = 2;
    expect((stored.payload as { b: { n: number } }).b.n).toBe(1);
  });

  it('readStoredEvent checks like assertStoredEvent and freezes the parsed value in place', () => {
    const text = prepareAppend(config(), 's', 0, [event('a', { list: [{ n: 1 }] })]).texts[0]!;
    const parsed = JSON.parse(text) as { payload: { list: object[] } };
    expect(readStoredEvent(parsed, { streamId: 's', revision: 1 })).toBe(parsed);
    expect(Object.isFrozen(parsed) && Object.isFrozen(parsed.payload.list[0])).toBe(true);
    for (const timestamp of ['2025-02-29T00:00:00.000Z', '2025-13-01T00:00:00.000Z', '2025-04-31T00:00:00.000Z', '2025-01-01T24:00:00.000Z', '2025-01-01T00:60:00.000Z']) {
      const bad = { ...(JSON.parse(text) as object), timestamp };
      refusal(() => readStoredEvent(bad), 'INVALID_STORED_VALUE');
      refusal(() => assertStoredEvent(bad), 'INVALID_STORED_VALUE');
    }
    expect(() => readStoredEvent({ ...(JSON.parse(text) as object), timestamp: '2024-02-29T23:59:59.999Z' })).not.toThrow();
    refusal(() => readStoredEvent({ ...(JSON.parse(text) as object), payload: { n: Number.NaN } }), 'INVALID_STORED_VALUE');
  });
});
