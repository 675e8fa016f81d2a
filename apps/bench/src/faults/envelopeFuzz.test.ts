import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, isRoundtableError } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import type { NewEvent, RunStorage, StorageOptions, StoredEvent } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { createSqliteStorage } from '@roundtable/storage-sqlite';
import { FULL, countFuzzCase, faultCounts, reportFaults } from './faultReport.js';

// Hostile event envelopes — arbitrary strings (lone surrogates, controls, separators, astral
// characters, 256-byte edges) in every identifier field and payload, duplicate ids, known
// secrets — appended to every adapter at once. The adapters must agree: all refuse a batch
// with the same typed code and write nothing, or all accept it, and then another instance over
// the same data reads back exactly (byte for byte, in canonical JSON) what was written.

const RUNS = FULL ? 10_000 : 60;
const SECRET = 'sk-fuzz-𝔰𝔢𝔠𝔯𝔢𝔱\u2028';

let scratch: string;
const adapters: { name: string; writer: RunStorage; reader: RunStorage }[] = [];
const outcomes = new Map<string, number>();

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-fuzz-envelopes-'));
  const options: StorageOptions = { knownSecrets: [SECRET], limits: { maxEventPayloadBytes: 4096, maxAppendBatchBytes: 12_288 } };
  const backing = createMemoryBacking();
  const fsDirectory = join(scratch, 'fs');
  const filename = join(scratch, 'record.sqlite');
  adapters.push(
    { name: 'memory', writer: createMemoryStorage({ ...options, backing }), reader: createMemoryStorage({ ...options, backing }) },
    { name: 'fs', writer: createFsStorage({ ...options, directory: fsDirectory }), reader: createFsStorage({ ...options, directory: fsDirectory }) },
    { name: 'sqlite', writer: createSqliteStorage({ ...options, filename }), reader: createSqliteStorage({ ...options, filename }) },
  );
});
afterAll(async () => {
  for (const { writer, reader } of adapters) await Promise.all([writer.close(), reader.close()]);
  rmSync(scratch, { recursive: true, force: true });
  console.log(`[faults] envelope outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  reportFaults('envelope fuzz');
});

// Code units of every kind: lone surrogates, valid pairs, controls, separators, BOM, noncharacters.
const unit = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 8 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 4 },
  { arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), weight: 1 },
  { arbitrary: fc.constantFrom('\u0000', '\u001f', '\u007f', '\u0085', '\u2028', '\u2029', '\ufeff', '\uffff', '\ufffe', 'é', '€', '😀', 'e\u0301', ' ', '"', '\\'), weight: 3 },
);
const oddString = fc.oneof(
  { arbitrary: fc.string({ unit, minLength: 1, maxLength: 16 }), weight: 6 },
  { arbitrary: fc.string({ unit, minLength: 60, maxLength: 130 }), weight: 1 },
  { arbitrary: fc.constantFrom('😀'.repeat(64), '😀'.repeat(64) + 'x', 'é'.repeat(128), '€'.repeat(85) + 'x', 'x'.repeat(257), 'x'.repeat(4100)), weight: 1 },
  { arbitrary: fc.string({ unit, maxLength: 6 }).map((text) => `${text}${SECRET}`), weight: 1 },
);
const jsonString = fc.oneof({ arbitrary: fc.string({ unit: 'binary' }), weight: 3 }, { arbitrary: oddString, weight: 1 });
const oddJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -0, 1.5, 2 ** 53 - 1),
    jsonString,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(jsonString, tie('value'), { maxKeys: 3 }),
  ),
})).value;

const plainId = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }).map((text) => `id-${text.trim()}`);
// Mostly plain fields, so that each case has one or two odd ones and a fair share is accepted.
const plainOr = <T>(plain: fc.Arbitrary<T>) => fc.oneof({ arbitrary: plain, weight: 3 }, { arbitrary: oddString, weight: 1 });
const envelope = fc.record({
  eventId: plainOr(plainId),
  type: plainOr(fc.constant('fuzz:event')),
  correlationId: plainOr(fc.constant('fuzz')),
  causationId: plainOr(fc.constant(null)),
  payload: oddJson,
});

// The two outcomes the bounded form checks for, run first, so that reaching them does not rest
// on the draw: a plain envelope (accepted) and one with a lone surrogate in its id (refused).
const plainEnvelope = { eventId: 'id-plain', type: 'fuzz:event', correlationId: 'fuzz', causationId: null, payload: { n: 1 } };
const examples: [(typeof plainEnvelope)[], boolean][] = [
  [[plainEnvelope], false],
  [[{ ...plainEnvelope, eventId: 'id-\ud800' }], false],
];

let caseNumber = 0;

/** The adapter's outcome for one append: the head it returned, or the typed error's code. */
async function appendOutcome(storage: RunStorage, streamId: string, events: NewEvent[]): Promise<string> {
  try {
    return `head ${await storage.append(streamId, 0, events)}`;
  } catch (error) {
    if (!isRoundtableError(error)) throw new Error(`untyped failure: ${String(error)}`, { cause: error });
    return error.code;
  }
}

async function readAll(storage: RunStorage, streamId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of storage.read(streamId)) events.push(event);
  return events;
}

describe('hostile event envelopes', () => {
  it(`every adapter refuses the same batches with the same code, and returns the others exactly`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(envelope, { minLength: 1, maxLength: 3 }), fc.boolean(), async (fields, repeatId) => {
        const streamId = `envelope-${caseNumber++}`;
        const events: NewEvent[] = fields.map((field, index) => ({ ...field, version: 1, timestamp: '2025-01-02T03:04:05.678Z', eventId: repeatId && index > 0 ? fields[0]!.eventId : field.eventId }));
        const results = await Promise.all(adapters.map(({ writer }) => appendOutcome(writer, streamId, events)));
        expect(new Set(results).size, `adapters disagree: ${adapters.map(({ name }, i) => `${name} ${results[i]}`).join(', ')}`).toBe(1);
        const result = results[0]!;
        outcomes.set(result, (outcomes.get(result) ?? 0) + 1);
        countFuzzCase('envelopes');
        const accepted = result.startsWith('head ');
        const expected = accepted ? events.map((event, index) => canonicalJson({ ...event, envelopeVersion: 1, streamId, revision: index + 1 })) : [];
        for (const { name, reader } of adapters) {
          const read = await readAll(reader, streamId);
          expect(read.map((event) => canonicalJson(event)), `${name} read back`).toEqual(expected);
          read.forEach((event, index) => {
            // Field by field, code unit for code unit: nothing normalised, replaced or trimmed.
            for (const key of ['eventId', 'type', 'correlationId', 'causationId'] as const) expect(event[key]).toBe(events[index]![key]);
          });
        }
        if (accepted) faultCounts.accepted++;
        else faultCounts.typedErrors++;
      }),
      { numRuns: RUNS, examples },
    );
    // The mix reached both outcomes (the examples make sure of it), and in the long form, by
    // its draws alone, the refusals the rules are about.
    expect([...outcomes.keys()]).toEqual(expect.arrayContaining(['head 1', 'INVALID_STORED_VALUE']));
    if (FULL) expect([...outcomes.keys()]).toEqual(expect.arrayContaining(['DUPLICATE_EVENT_ID', 'KNOWN_SECRET', 'STORAGE_LIMIT_EXCEEDED']));
  });
});
