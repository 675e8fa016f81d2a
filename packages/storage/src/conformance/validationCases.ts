import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { newEvent, storedEvents } from './fixtures.js';
import type { MutableEvent } from './fixtures.js';
import { check, checkStream, collect, expectOk, expectRejects, show } from './harness.js';

const invalidBatches: ConformanceCaseDefinition = {
  name: 'invalid-batches',
  rule: 'An empty, sparse or non-array batch, or an expected revision that is not a non-negative safe integer, is INVALID_STORED_VALUE and nothing is written.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    const sparse: MutableEvent[] = new Array<MutableEvent>(3);
    sparse[0] = newEvent(`${streamId}-1`);
    sparse[2] = newEvent(`${streamId}-3`);
    const batches: [string, unknown][] = [
      ['an empty batch', []],
      ['a sparse batch', sparse],
      ['null', null],
      ['an object', { 0: newEvent(`${streamId}-1`), length: 1 }],
      ['one event not in an array', newEvent(`${streamId}-1`)],
    ];
    for (const [label, batch] of batches) {
      await expectRejects(() => storage.append(streamId, 0, batch as MutableEvent[]), 'INVALID_STORED_VALUE', `append of ${label}`);
    }
    for (const expectedRevision of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '0', null] as unknown[]) {
      await expectRejects(
        () => storage.append(streamId, expectedRevision as number, [newEvent(`${streamId}-1`)]),
        'INVALID_STORED_VALUE',
        `append at expected revision ${show(expectedRevision)}`,
      );
    }
    await checkStream(storage, streamId, [], 'after the refused batches');
  },
};

/** Malformed events, each of which alone (and after a valid one) must be refused. */
function malformedEvents(id: string): [string, unknown][] {
  const valid = newEvent(id);
  const without = ({ causationId: _, ...rest }: MutableEvent) => rest;
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const holes: number[] = new Array<number>(3);
  holes[0] = 1;
  holes[2] = 3;
  class Instance {
    constructor() {
      Object.assign(this, newEvent(id));
    }
  }
  return [
    ['an extra field', { ...valid, extra: 1 }],
    ['a missing field (causationId)', without(valid)],
    ['a timestamp without milliseconds', { ...valid, timestamp: '2025-01-02T03:04:05Z' }],
    ['a timestamp with an offset', { ...valid, timestamp: '2025-01-02T03:04:05.678+00:00' }],
    ['a timestamp with a space', { ...valid, timestamp: '2025-01-02 03:04:05.678Z' }],
    ['February 30th', { ...valid, timestamp: '2025-02-30T03:04:05.678Z' }],
    ['a numeric timestamp', { ...valid, timestamp: 1735787045678 }],
    ['version 0', { ...valid, version: 0 }],
    ['version -1', { ...valid, version: -1 }],
    ['version 1.5', { ...valid, version: 1.5 }],
    ['version "1"', { ...valid, version: '1' }],
    ['an empty event id', { ...valid, eventId: '' }],
    ['an event id with a leading space', { ...valid, eventId: ` ${id}` }],
    ['an event id with a control character', { ...valid, eventId: `${id}\u0007` }],
    ['an event id of 257 ASCII bytes', { ...valid, eventId: 'x'.repeat(257) }],
    ['an event id of 258 UTF-8 bytes in 129 characters', { ...valid, eventId: 'é'.repeat(129) }],
    ['a numeric event id', { ...valid, eventId: 7 }],
    ['an empty type', { ...valid, type: '' }],
    ['an empty correlation id', { ...valid, correlationId: '' }],
    ['an empty causation id', { ...valid, causationId: '' }],
    ['a type of 257 bytes', { ...valid, type: 't'.repeat(257) }],
    ['an undefined payload', { ...valid, payload: undefined }],
    ['a NaN payload', { ...valid, payload: Number.NaN }],
    ['an Infinity in the payload', { ...valid, payload: { n: Number.POSITIVE_INFINITY } }],
    ['an undefined value in the payload', { ...valid, payload: { a: undefined } }],
    ['a function in the payload', { ...valid, payload: { f: () => 0 } }],
    ['a Date in the payload', { ...valid, payload: { at: new Date(0) } }],
    ['a bigint in the payload', { ...valid, payload: { n: 1n } }],
    ['a sparse array in the payload', { ...valid, payload: holes }],
    ['a cycle in the payload', { ...valid, payload: cyclic }],
    ['a lone surrogate in the payload', { ...valid, payload: 'a\ud800b' }],
    ['null instead of an event', null],
    ['a string instead of an event', 'event'],
    ['an array instead of an event', [valid]],
    ['a class instance', new Instance()],
  ];
}

const malformedEventsCase: ConformanceCaseDefinition = {
  name: 'malformed-events',
  rule: 'An event that is not exactly a valid NewEvent (fields, identifiers of at most 256 UTF-8 bytes, timestamp, positive version, JSON payload) is INVALID_STORED_VALUE and nothing of its batch is written; values at the limits pass.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    for (const [label, event] of malformedEvents(`${streamId}-bad`)) {
      await expectRejects(() => storage.append(streamId, 0, [event as MutableEvent]), 'INVALID_STORED_VALUE', `an event with ${label}`);
      const batch = [newEvent(`${streamId}-good`), event] as MutableEvent[];
      await expectRejects(() => storage.append(streamId, 0, batch), 'INVALID_STORED_VALUE', `a valid event followed by one with ${label}`);
    }
    await checkStream(storage, streamId, [], 'after the malformed events');

    const atLimits = [
      newEvent('é'.repeat(128), null, { type: 't'.repeat(256) }),
      newEvent('x'.repeat(256), [], { correlationId: 'ü'.repeat(128), causationId: 'c'.repeat(256) }),
      newEvent(`${streamId}-max-version`, 'text', { version: Number.MAX_SAFE_INTEGER, timestamp: '2024-02-29T23:59:59.999Z' }),
      newEvent(`${streamId}-scalar`, 0, { timestamp: '1970-01-01T00:00:00.000Z' }),
    ];
    const head = await expectOk(() => storage.append(streamId, 0, atLimits), 'events at the limits (256-byte ids, max safe version, leap day, scalar payloads)');
    check(head === atLimits.length, `events at the limits should be appended (head ${atLimits.length}), got ${show(head)}.`);
    await checkStream(storage, streamId, storedEvents(streamId, 0, atLimits), 'events at the limits');
  },
};

const badStreamIds: ConformanceCaseDefinition = {
  name: 'bad-stream-ids',
  rule: 'A stream id not matching ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ is INVALID_STORED_VALUE for append, head and read; a 128-character id works.',
  async run(context) {
    const storage = await context.open();
    const ids: unknown[] = ['', '.hidden', '-dash', '_under', 'a/b', '../escape', 'a\\b', 'a b', 'a:b', 'é', `a\u0000`, 'x'.repeat(129), 7, null, undefined];
    for (const id of ids) {
      const label = show(id);
      const event = newEvent(`${context.stream('event')}`);
      await expectRejects(() => storage.append(id as string, 0, [event]), 'INVALID_STORED_VALUE', `append to stream id ${label}`);
      await expectRejects(() => storage.head(id as string), 'INVALID_STORED_VALUE', `head of stream id ${label}`);
      await expectRejects(() => collect(() => storage.read(id as string)), 'INVALID_STORED_VALUE', `read of stream id ${label}`);
    }
    const longest = context.stream('long').padEnd(128, 'Z');
    const mixed = `${context.stream('Mixed')}.A_b-9`;
    for (const streamId of [longest, mixed]) {
      const events = [newEvent(`${streamId}-1`)];
      await expectOk(() => storage.append(streamId, 0, events), `append to the valid stream id ${streamId}`);
      await checkStream(storage, streamId, storedEvents(streamId, 0, events), `the valid stream id ${streamId}`);
    }
  },
};

export const validationCases = [invalidBatches, malformedEventsCase, badStreamIds];
