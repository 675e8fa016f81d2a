import { assertJson, canonicalJson, deepFreezeJson, freezeJson, parseFrozenJson, privateMark, isRoundtableError } from '@roundtable/core';
import type { FrozenJson, Json } from '@roundtable/core';
import { StorageError } from './errors.js';
import { ENVELOPE_VERSION, NEW_EVENT_KEYS, STORED_EVENT_KEYS } from './events.js';
import type { NewEvent, StoredEvent } from './events.js';
import { invalid, isEventIdentifier, isStreamId, isTimestamp } from './eventFields.js';

export { assertRevision, assertStreamId, isStreamId } from './eventFields.js';

// eslint-disable-next-line @typescript-eslint/unbound-method -- always called with .call
const { hasOwnProperty } = Object.prototype;

function hasExactKeys(value: object, keys: readonly string[]): boolean {
  if (Object.keys(value).length !== keys.length) return false;
  // A loop, not `every`: this runs once per event read.
  for (let i = 0; i < keys.length; i++) if (!hasOwnProperty.call(value, keys[i]!)) return false;
  return true;
}

/**
 * A plain object whose own properties are all enumerable data properties with string keys: what
 * JSON can express. Without this a class instance, a getter or a hidden property would pass the
 * field checks and then fail later in canonical JSON with a non-storage error (or, for a getter,
 * be read again with a different value).
 */
function isPlainDataObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  const names = Object.getOwnPropertyNames(value);
  for (const name of names) {
    const descriptor = Object.getOwnPropertyDescriptor(value, name);
    if (descriptor === undefined || !('value' in descriptor) || descriptor.enumerable !== true) return false;
  }
  return true;
}

/** Checks the fields every event shares, for a new event or the new-event part of a stored one. */
function assertEventFields(event: Record<string, unknown>, where: string, checkPayload = true): void {
  const fail = (field: string, rule: string) => invalid(`${where}: ${field} ${rule}.`, { field });
  const identifierRule = 'must be an identifier of at most 256 UTF-8 bytes (well-formed Unicode with no lone surrogate, no U+0000–U+001F or U+007F, no surrounding whitespace)';
  if (!isEventIdentifier(event.eventId)) throw fail('eventId', identifierRule);
  if (!isEventIdentifier(event.type)) throw fail('type', identifierRule);
  if (typeof event.version !== 'number' || !Number.isSafeInteger(event.version) || event.version < 1) {
    throw fail('version', 'must be a positive safe integer');
  }
  if (!isTimestamp(event.timestamp)) throw fail('timestamp', 'must be a UTC time written YYYY-MM-DDTHH:MM:SS.mmmZ');
  if (!isEventIdentifier(event.correlationId)) throw fail('correlationId', identifierRule);
  if (event.causationId !== null && !isEventIdentifier(event.causationId)) {
    throw fail('causationId', `must be null or ${identifierRule.slice('must be '.length)}`);
  }
  if (checkPayload) payloadText(event.payload, where, false);
}

/**
 * Checks that a payload is JSON (INVALID_STORED_VALUE otherwise) and, when `canonical`, returns
 * its canonical text from the same walk.
 */
export function payloadText(payload: unknown, where: string, canonical: true): string;
export function payloadText(payload: unknown, where: string, canonical: false): undefined;
export function payloadText(payload: unknown, where: string, canonical: boolean): string | undefined {
  try {
    if (canonical) return canonicalJson(payload);
    assertJson(payload);
    return undefined;
  } catch (error) {
    if (!isRoundtableError(error)) throw error;
    throw invalid(`${where}: payload is not JSON: ${error.message}`, { field: 'payload', cause: error.details });
  }
}

/**
 * A payload checked, canonicalised and frozen by one walk (INVALID_STORED_VALUE when it is not
 * JSON): its canonical text and a deep-frozen copy that shares the payload's deep-frozen parts.
 */
export function frozenPayload(payload: unknown, where: string): FrozenJson {
  try {
    return freezeJson(payload);
  } catch (error) {
    if (!isRoundtableError(error)) throw error;
    throw invalid(`${where}: payload is not JSON: ${error.message}`, { field: 'payload', cause: error.details });
  }
}

/**
 * The one mark of a trusted envelope: events `checkedNewEvent` built from fields it accepted,
 * marked before being frozen (core's `privateMark`: invisible to reflection and JSON, forgotten
 * with the event, and only this module can add it). Why: a frozen event's fields can never
 * change, so neither `assertNewEvent` nor an append's preflight checks its envelope again.
 */
const trustedEnvelope = privateMark();

/**
 * A new event built from its fields, frozen, its envelope checked and so not checked again by
 * `assertNewEvent` or an append's preflight (`prepareAppend`), which still check its payload.
 * What reflection would verify on an event someone else built (a plain object, exactly the
 * `NEW_EVENT_KEYS` fields, each an enumerable data property) holds here by construction: the
 * object is this function's own literal, frozen before it is returned. Only the fields' values
 * are checked, as `assertNewEvent` checks them; fields that fail are not reported here: the
 * event is returned unchecked, and whoever checks it later refuses it as before, with the same
 * error. A writer that builds several events a turn (the scheduler) saves the reflection and its
 * garbage (a property descriptor per field, about 450 bytes an event).
 */
export function checkedNewEvent(eventId: string, type: string, version: number, timestamp: string, correlationId: string, causationId: string | null, payload: Json): NewEvent {
  const event = { eventId, type, version, timestamp, correlationId, causationId, payload };
  return Object.freeze(eventFieldsAccepted(event) ? trustedEnvelope.add(event) : event);
}

function eventFieldsAccepted(event: Record<string, unknown>): boolean {
  try {
    assertEventFields(event, 'event', false);
    return true;
  } catch (error) {
    if (isRoundtableError(error)) return false;
    throw error;
  }
}

/** True when `value` is an event `checkedNewEvent` built, whose envelope needs no check. */
export function isCheckedEnvelope(value: unknown): value is NewEvent {
  return trustedEnvelope.has(value);
}

/** Throws INVALID_STORED_VALUE unless `value` is exactly a `NewEvent`. */
export function assertNewEvent(value: unknown, where = 'event'): asserts value is NewEvent {
  // An event `checkedNewEvent` built and accepted cannot have changed since (proven redundant).
  if (!isCheckedEnvelope(value)) assertNewEventEnvelope(value, where);
  payloadText(value.payload, where, false);
}

const NEW_EVENT_KEY_SET: ReadonlySet<string> = new Set(NEW_EVENT_KEYS);

/**
 * `isPlainDataObject(value) ? (hasExactKeys(value, NEW_EVENT_KEYS) ? 'ok' : 'keys') : 'plain'`
 * in one pass over the own names: once every own property is an enumerable data property with
 * a string key, the names are the keys, and seven distinct names that are all fields are
 * exactly the fields.
 */
function newEventShape(value: object): 'ok' | 'plain' | 'keys' {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return 'plain';
  if (Object.getOwnPropertySymbols(value).length > 0) return 'plain';
  const names = Object.getOwnPropertyNames(value);
  let fields = names.length === NEW_EVENT_KEYS.length;
  for (const name of names) {
    const descriptor = Object.getOwnPropertyDescriptor(value, name);
    if (descriptor === undefined || !('value' in descriptor) || descriptor.enumerable !== true) return 'plain';
    fields &&= NEW_EVENT_KEY_SET.has(name);
  }
  return fields ? 'ok' : 'keys';
}

/** Every check of `assertNewEvent` except the walk of the payload (for callers that walk it anyway). */
export function assertNewEventEnvelope(value: unknown, where: string): asserts value is NewEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`${where} must be an object.`);
  const shape = newEventShape(value);
  if (shape === 'plain') throw invalid(`${where} must be a plain object with data properties only.`);
  if (shape === 'keys') throw invalid(`${where} must have exactly the fields ${NEW_EVENT_KEYS.join(', ')}.`);
  assertEventFields(value as Record<string, unknown>, where, false);
}

/**
 * What an adapter does with a value it has just parsed from its own stored text: every check
 * of `assertStoredEvent`, in one walk that also deep-freezes the value in place (so the fold
 * reuses it without copying or walking it again). Returns the event. The value must come from
 * `JSON.parse` (so it is a plain data object, which is not checked again); for any other value
 * use `assertStoredEvent`.
 */
export function readStoredEvent(value: unknown, expected?: { streamId: string; revision: number }): StoredEvent {
  checkStoredEvent(value, expected, true);
  return value as StoredEvent;
}

/**
 * `readStoredEvent(JSON.parse(text), expected)`, cheaper: `parseFrozenJson` freezes, in the
 * same pass that proves it JSON, what it can prove of the parsed value, which the walk of
 * `readStoredEvent` then takes as checked (the envelope is checked as before, and anything not
 * proven is walked in full, with the same error). A SyntaxError from a text that is not JSON
 * passes through.
 */
export function parseStoredEvent(text: string, expected?: { streamId: string; revision: number }): StoredEvent {
  return readStoredEvent(parseFrozenJson(text), expected);
}

/**
 * Checks a value read back from storage. An `envelopeVersion` other than 1 is
 * UNSUPPORTED_ENVELOPE_VERSION; anything else that is off is INVALID_STORED_VALUE. Adapters turn
 * the latter into CORRUPT_EVENT_STREAM when it comes from damaged data.
 */
export function assertStoredEvent(value: unknown, expected?: { streamId: string; revision: number }): asserts value is StoredEvent {
  checkStoredEvent(value, expected, false);
}

function checkStoredEvent(value: unknown, expected: { streamId: string; revision: number } | undefined, freeze: boolean): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('Stored event must be an object.');
  // What JSON.parse returns (readStoredEvent's input) is always a plain data object.
  if (!freeze && !isPlainDataObject(value)) throw invalid('Stored event must be a plain object with data properties only.');
  const event = value as Record<string, unknown>;
  if (event.envelopeVersion !== ENVELOPE_VERSION) {
    throw new StorageError('UNSUPPORTED_ENVELOPE_VERSION', `Envelope version ${JSON.stringify(event.envelopeVersion)} is not supported (only 1).`, {
      details: { envelopeVersion: event.envelopeVersion ?? null },
    });
  }
  if (!hasExactKeys(event, STORED_EVENT_KEYS)) throw invalid(`Stored event must have exactly the fields ${STORED_EVENT_KEYS.join(', ')}.`);
  if (!isStreamId(event.streamId)) throw invalid('Stored event has an invalid streamId.', { field: 'streamId' });
  if (typeof event.revision !== 'number' || !Number.isSafeInteger(event.revision) || event.revision < 1) {
    throw invalid('Stored event revision must be a positive safe integer.', { field: 'revision' });
  }
  const where = `stored event ${event.streamId}@${event.revision}`;
  assertEventFields(event, where, !freeze);
  if (freeze) {
    try {
      deepFreezeJson(event.payload);
    } catch (error) {
      if (!isRoundtableError(error)) throw error;
      throw invalid(`${where}: payload is not JSON: ${error.message}`, { field: 'payload', cause: error.details });
    }
    Object.freeze(event);
  }
  if (expected && (event.streamId !== expected.streamId || event.revision !== expected.revision)) {
    throw invalid(`Stored event is ${event.streamId}@${event.revision}, expected ${expected.streamId}@${expected.revision}.`);
  }
}
