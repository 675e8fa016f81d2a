import type { Json } from '@roundtable/core';
import type { StorageError } from '../errors.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { newEvent, storedEvents } from './fixtures.js';
import type { MutableEvent } from './fixtures.js';
import { check, checkStream, expectOk, expectRejects, show } from './harness.js';

const PLAIN = 'sk-conformance-PLAIN-7f3a9c';
/** Written as `\n` in the bytes: only the decoded string holds it. */
const WITH_NEWLINE = 'line-one\nline-two-secret-9d';
/** Written as `\"` in the bytes: only the decoded string holds it. */
const WITH_QUOTE = 'say "cheese" secret-q4';
/** A secret given in its escaped form: only the written bytes hold it (the payload has a real tab). */
const ESCAPED_FORM = 'tab\\tsecret-b8';
const SECRETS = [PLAIN, WITH_NEWLINE, WITH_QUOTE, ESCAPED_FORM];

function checkNoLeak(error: StorageError, what: string): void {
  const cause: unknown = error.cause;
  const places: [string, string][] = [
    ['message', error.message],
    ['details', `${show(error.details ?? null)} ${JSON.stringify(error.details ?? null) ?? ''}`],
    ['cause', cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : ''],
  ];
  for (const [place, text] of places) {
    const leaked = SECRETS.findIndex((secret) => text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1)));
    // Name the secret by position only: the report itself must not spread it either.
    check(leaked === -1, `${what}: the KNOWN_SECRET error must not contain the secret, but its ${place} contains known secret #${leaked + 1}.`);
  }
}

function withPayload(id: string, payload: Json): MutableEvent {
  return newEvent(id, payload);
}

const knownSecrets: ConformanceCaseDefinition = {
  name: 'known-secrets',
  rule: 'With `knownSecrets`, an append whose bytes or decoded strings (values or keys, in any field, or the stream id) contain one is KNOWN_SECRET, nothing is written, and the error does not repeat the secret.',
  async run(context) {
    const storage = await context.open({ knownSecrets: SECRETS });
    const streamId = context.stream();
    const id = (label: string) => `${streamId}-${label}`;
    const refused: [string, MutableEvent[]][] = [
      ['the plain secret in a nested payload string', [withPayload(id('p1'), { a: { b: ['x', `before ${PLAIN} after`] } })]],
      ['the plain secret as a payload key', [withPayload(id('p2'), { [`key-${PLAIN}`]: 1 })]],
      ['the plain secret in the event id', [newEvent(`id-${PLAIN}`)]],
      ['the plain secret in the correlation id', [newEvent(id('p3'), null, { correlationId: PLAIN })]],
      ['the plain secret in the type', [newEvent(id('p4'), null, { type: `type:${PLAIN}` })]],
      ['a secret with a newline in a payload string', [withPayload(id('n1'), { text: `>>${WITH_NEWLINE}<<` })]],
      ['a secret with a newline as a payload key', [withPayload(id('n2'), { [WITH_NEWLINE]: true })]],
      ['a secret with a quote in a payload string', [withPayload(id('q1'), [`${WITH_QUOTE}`])]],
      ['a secret with a quote as a nested payload key', [withPayload(id('q2'), { outer: { [`k ${WITH_QUOTE}`]: 'v' } })]],
      ['a secret given in escaped form, present in the written bytes', [withPayload(id('e1'), { text: 'tab\tsecret-b8' })]],
      ['a clean event followed by one with the plain secret', [newEvent(id('clean')), withPayload(id('p5'), PLAIN)]],
    ];
    for (const [label, batch] of refused) {
      const error = await expectRejects(() => storage.append(streamId, 0, batch), 'KNOWN_SECRET', label);
      checkNoLeak(error, label);
    }
    await checkStream(storage, streamId, [], 'after the refused appends');
    const secretStream = `${streamId}-${PLAIN}`;
    const error = await expectRejects(() => storage.append(secretStream, 0, [newEvent(id('s1'))]), 'KNOWN_SECRET', 'the plain secret in the stream id');
    checkNoLeak(error, 'the plain secret in the stream id');
    await checkStream(storage, secretStream, [], 'a stream whose id holds the secret');

    const clean = [
      withPayload(id('near-1'), { text: PLAIN.slice(0, -1), other: PLAIN.slice(1) }),
      withPayload(id('near-2'), { text: 'line-one line-two-secret-9d', quote: 'say cheese secret-q4', tab: 'tab\\ secret-b8' }),
    ];
    const head = await expectOk(() => storage.append(streamId, 0, clean), 'events that only come near the secrets');
    check(head === 2, `events that only come near the secrets should be appended (head 2), got ${show(head)}.`);
    await checkStream(storage, streamId, storedEvents(streamId, 0, clean), 'the events near the secrets');
  },
};

const shortKnownSecrets: ConformanceCaseDefinition = {
  name: 'short-known-secrets',
  rule: 'A `knownSecrets` entry shorter than 8 characters after trimming, a lone surrogate in one, or an entry that is not a string is refused when the storage is created (INVALID_STORAGE_OPTIONS); 8 characters pass.',
  async run(context) {
    const refused: [string, unknown[]][] = [
      ['the empty string', ['']],
      ['7 characters', ['1234567']],
      ['7 characters padded with spaces to 11', ['  1234567  ']],
      ['whitespace only', ['          ']],
      ['7 astral characters (14 UTF-16 units)', ['😀'.repeat(7)]],
      ['a short entry after a long one', [PLAIN, 'short']],
      ['a lone surrogate', ['long-enough-\ud800']],
      ['a number', [12345678]],
    ];
    for (const [label, secrets] of refused) {
      await context.expectOpenRefused({ knownSecrets: secrets as string[] }, 'INVALID_STORAGE_OPTIONS', `knownSecrets with ${label}`);
    }
    const storage = await context.open({ knownSecrets: ['12345678', ' 😀😀😀😀😀😀😀😀 '] });
    const streamId = context.stream();
    await expectRejects(() => storage.append(streamId, 0, [withPayload(`${streamId}-1`, 'x12345678x')]), 'KNOWN_SECRET', 'an 8-character secret');
    await expectRejects(() => storage.append(streamId, 0, [withPayload(`${streamId}-2`, 'a 😀😀😀😀😀😀😀😀 b')]), 'KNOWN_SECRET', 'an astral secret with its spaces');
    const head = await expectOk(() => storage.append(streamId, 0, [withPayload(`${streamId}-3`, '1234567 😀😀😀😀😀😀😀😀')]), 'text near the secrets');
    check(head === 1, `text that only comes near the secrets should be appended (head 1), got ${show(head)}.`);
  },
};

export const secretCases = [knownSecrets, shortKnownSecrets];
