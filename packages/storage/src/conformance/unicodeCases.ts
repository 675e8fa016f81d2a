import type { Json } from '@roundtable/core';
import type { StoredEvent } from '../events.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { newEvent, storedEvents } from './fixtures.js';
import type { MutableEvent } from './fixtures.js';
import { check, checkHead, checkStream, expectOk, expectRejects, fail, readEvents, show } from './harness.js';

/**
 * Identifiers (event id, type, correlation id, causation id) that are valid but awkward: astral
 * characters (4 UTF-8 bytes, a surrogate pair in JavaScript), combining marks, the two Unicode
 * line separators, a byte-order mark, noncharacters, C1 controls and bidi marks inside the id,
 * and ids of exactly 256 UTF-8 bytes made of 2-, 3- and 4-byte characters. `e\u0301` and `é`,
 * or `A` and `a`, are different ids: an adapter must neither normalise nor fold case.
 */
const ODD_IDENTIFIERS: readonly string[] = [
  'astral-😀-𝔘𝔫𝔦-🏳️‍🌈',
  'combining-e\u0301-a\u0308\u0323',
  'precomposed-\u00e9-\u00e4',
  'line\u2028separator',
  'paragraph\u2029separator',
  'bom-\ufeff-inside',
  'nonchar-\uffff-\ufffe-\u{10ffff}',
  'c1-\u0085-\u009f-controls',
  'bidi-\u200f\u202e-marks-\u200d',
  'quote"back\\slash/solidus',
  'CASE-id',
  'case-id',
  '😀'.repeat(64),
  '€'.repeat(85) + 'x',
  'é'.repeat(128),
  '\u{1d11e}',
];

/** Payload strings that are valid JSON strings but easy to mangle: every C0 control, NUL, DEL, separators, BOM, noncharacters, astral, combining. */
const ODD_STRINGS: readonly string[] = [
  Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).join(''),
  'nul\u0000inside',
  '\u0000',
  'del\u007f',
  '\u2028\u2029',
  '\ufeffstarts with a BOM',
  'ends with a BOM\ufeff',
  '\uffff\ufffe',
  '\u{10ffff}\u{1f600}\u{e0001}',
  'e\u0301\u0302\u0303\u0304\u0305',
  '  surrounding space  ',
  '"quoted" \\ /',
  '🏳️‍🌈👩‍👩‍👧‍👦',
  '\ud83d\ude00',
  '',
];

function oddPayload(seed: number): Json {
  const object: Record<string, Json> = {};
  ODD_STRINGS.forEach((text, index) => {
    // Keys are odd too (NUL, separators, astral, the empty key), and sort differently by code
    // unit than by code point: '\uffff' after '😀' in canonical order.
    object[`${text}#${index}`] = text;
  });
  object[''] = { '\uffff': 'last by code unit', '😀': 'before \\uffff by code unit', list: [...ODD_STRINGS] };
  object.seed = seed;
  return object;
}

/** The valid events of the case: each odd identifier once as an event id and in every other identifier field. */
function oddEvents(streamId: string): MutableEvent[] {
  return ODD_IDENTIFIERS.map((id, index) =>
    newEvent(id, oddPayload(index), {
      type: ODD_IDENTIFIERS[(index + 1) % ODD_IDENTIFIERS.length]!,
      correlationId: ODD_IDENTIFIERS[(index + 2) % ODD_IDENTIFIERS.length]!,
      causationId: index % 3 === 0 ? null : ODD_IDENTIFIERS[(index + 3) % ODD_IDENTIFIERS.length]!,
      timestamp: `2025-01-02T03:04:${String(index % 60).padStart(2, '0')}.678Z`,
    }),
  ).concat([newEvent(`${streamId}-plain`)]);
}

const LONE_SURROGATES = ['lone-high-\ud800', '\udc00-lone-low', 'reversed-\ude00\ud83d-pair', 'end-\udbff'];

/** Events with a lone surrogate somewhere: no UTF-8 form exists, so no adapter could store them faithfully. */
function eventsWithLoneSurrogates(id: string): [string, unknown][] {
  const valid = newEvent(id);
  return [
    ...LONE_SURROGATES.flatMap((text): [string, unknown][] => [
      [`event id ${show(text)}`, { ...valid, eventId: text }],
      [`type ${show(text)}`, { ...valid, type: text }],
      [`correlation id ${show(text)}`, { ...valid, correlationId: text }],
      [`causation id ${show(text)}`, { ...valid, causationId: text }],
    ]),
    ['a payload string', { ...valid, payload: { text: 'a\ud800b' } }],
    ['a payload string in an array', { ...valid, payload: { list: ['fine', ['\udfff']] } }],
    ['a payload key', { ...valid, payload: { ['key-\ud800']: 1 } }],
    ['a nested payload key', { ...valid, payload: { outer: { ['\udc00']: 'v' } } }],
    ['a scalar payload', { ...valid, payload: '\ud83d' }],
  ];
}

/** Fails unless every string field of `actual` is exactly (code unit for code unit) the one written. */
function checkStringsExact(actual: readonly unknown[], expected: readonly StoredEvent[], what: string): void {
  expected.forEach((want, index) => {
    const got = actual[index] as Record<string, unknown> | undefined;
    for (const field of ['eventId', 'type', 'correlationId', 'causationId'] as const) {
      if (got?.[field] !== want[field]) fail(`${what}: event ${index + 1} ${field} should be ${show(want[field])}, got ${show(got?.[field])}.`);
    }
  });
}

const oddUnicode: ConformanceCaseDefinition = {
  name: 'odd-unicode-round-trips',
  rule:
    'Identifiers and payloads with astral characters, combining marks, U+2028/U+2029, U+FEFF, noncharacters, NUL and control characters (in payload strings and keys) and ids of exactly 256 UTF-8 bytes are returned exactly as written, by the instance that wrote them and by a fresh one; a lone surrogate in any field is INVALID_STORED_VALUE and nothing of its batch is written.',
  async run(context) {
    const writer = await context.open();
    const streamId = context.stream();
    const refusedStream = context.stream('refused');

    for (const [label, event] of eventsWithLoneSurrogates(`${refusedStream}-bad`)) {
      await expectRejects(() => writer.append(refusedStream, 0, [event as MutableEvent]), 'INVALID_STORED_VALUE', `an event with a lone surrogate in ${label}`);
      const batch = [newEvent(`${refusedStream}-good`), event] as MutableEvent[];
      await expectRejects(() => writer.append(refusedStream, 0, batch), 'INVALID_STORED_VALUE', `a valid event followed by one with a lone surrogate in ${label}`);
    }
    await checkStream(writer, refusedStream, [], 'after the events with lone surrogates');

    const events = oddEvents(streamId);
    // Half in one batch, the rest one by one: both paths write the same bytes.
    const half = Math.floor(events.length / 2);
    let head = await expectOk(() => writer.append(streamId, 0, events.slice(0, half)), 'a batch of events with odd Unicode');
    check(head === half, `the batch with odd Unicode should be appended (head ${half}), got ${show(head)}.`);
    for (const event of events.slice(half)) {
      head = await expectOk(() => writer.append(streamId, head, [event]), `an event with odd Unicode (${show(event.eventId)})`);
    }
    const expected = storedEvents(streamId, 0, events);
    await checkStream(writer, streamId, expected, 'odd Unicode read back by the writer');
    checkStringsExact(await readEvents(writer, streamId, undefined, 'read by the writer'), expected, 'odd Unicode read back by the writer');

    const fresh = await context.open();
    await checkStream(fresh, streamId, expected, 'odd Unicode read back by a fresh instance');
    const tail = await readEvents(fresh, streamId, { after: half }, 'a fresh read after the first batch');
    checkStringsExact(tail, expected.slice(half), 'odd Unicode read after the first batch by a fresh instance');

    // The ids are stored as given: appending any of them again is a duplicate, and a byte-identical retry is recognised.
    await expectRejects(() => fresh.append(streamId, head, [newEvent(ODD_IDENTIFIERS[0]!)]), 'DUPLICATE_EVENT_ID', 'an odd event id appended again');
    const retried = await expectOk(() => fresh.append(streamId, 0, events.slice(0, half)), 'a byte-identical retry of the odd batch');
    check(retried === half, `a byte-identical retry of the odd batch should return its head ${half}, got ${show(retried)}.`);
    await checkHead(fresh, streamId, events.length, 'after the duplicate and the retry');
  },
};

export const unicodeCases = [oddUnicode];
