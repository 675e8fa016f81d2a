import { canonicalJson, copyFrozenJson, isWellFormedString, utf8ByteLength } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { StorageError } from './errors.js';
import { ENVELOPE_VERSION } from './events.js';
import type { NewEvent, StoredEvent } from './events.js';
import type { StorageLimits, StorageOptions } from './storage.js';
import { DEFAULT_NAMESPACE, DEFAULT_STORAGE_LIMITS } from './storage.js';
import { assertNewEventEnvelope, assertRevision, assertStreamId, frozenPayload, isStreamId } from './validation.js';
import { findKnownSecret, withoutKnownSecrets } from './knownSecrets.js';

/** Storage options with defaults applied and checked; what adapters keep. */
export interface StorageConfig {
  readonly namespace: string;
  readonly limits: StorageLimits;
  readonly knownSecrets: readonly string[];
}

/** A batch that passed every check and is ready to write at `expectedRevision + 1 …`. */
export interface PreparedAppend {
  readonly streamId: string;
  readonly expectedRevision: number;
  /** The head after this batch is written. */
  readonly nextHead: number;
  /**
   * The events as they will be stored, deep-frozen (a payload's deep-frozen parts are shared with
   * the caller, which cannot change them), keys in canonical order: later edits of the caller's
   * objects change nothing.
   */
  readonly events: readonly StoredEvent[];
  /** The canonical JSON of each stored event, what adapters write and compare. */
  readonly texts: readonly string[];
  readonly eventIds: readonly string[];
}

function badOption(message: string): StorageError {
  return new StorageError('INVALID_STORAGE_OPTIONS', message);
}

function positiveLimit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw badOption(`limits.${name} must be a positive safe integer.`);
  return value;
}

/** The fewest characters (code points, after trimming) a known secret may have: a shorter one matches nearly everything. */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/**
 * Checks `knownSecrets` (SPEC 11.2): an array of well-formed strings (a lone surrogate could
 * never be found in text that is written as UTF-8) each at least 8 characters long after
 * trimming. The refusal names an entry by its index only, never by its value.
 */
function checkKnownSecrets(value: unknown): readonly string[] {
  if (!Array.isArray(value)) throw badOption('knownSecrets must be an array of strings.');
  const secrets: string[] = [];
  for (let index = 0; index < value.length; index++) {
    const secret: unknown = value[index];
    if (typeof secret !== 'string') throw badOption(`knownSecrets[${index}] must be a string.`);
    if (!isWellFormedString(secret)) throw badOption(`knownSecrets[${index}] contains a lone surrogate.`);
    if ([...secret.trim()].length < MIN_KNOWN_SECRET_LENGTH) {
      throw badOption(`knownSecrets[${index}] is shorter than ${MIN_KNOWN_SECRET_LENGTH} characters after trimming; so short a string matches nearly everything.`);
    }
    secrets.push(secret);
  }
  return Object.freeze(secrets);
}

/** Applies defaults to the options every adapter takes and checks them. */
export function resolveStorageOptions(options: StorageOptions = {}): StorageConfig {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  if (!isStreamId(namespace)) throw badOption(`namespace ${JSON.stringify(namespace)} must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$.`);
  const knownSecrets = checkKnownSecrets(options.knownSecrets ?? []);
  return Object.freeze({
    namespace,
    limits: Object.freeze({
      maxEventPayloadBytes: positiveLimit(options.limits?.maxEventPayloadBytes, DEFAULT_STORAGE_LIMITS.maxEventPayloadBytes, 'maxEventPayloadBytes'),
      maxAppendBatchBytes: positiveLimit(options.limits?.maxAppendBatchBytes, DEFAULT_STORAGE_LIMITS.maxAppendBatchBytes, 'maxAppendBatchBytes'),
    }),
    knownSecrets,
  });
}

/** UTF-8 bytes of an event's canonical payload: what `maxEventPayloadBytes` limits. */
export function eventPayloadBytes(event: Pick<NewEvent, 'payload'>): number {
  return utf8ByteLength(canonicalJson(event.payload));
}

/** Sum of the UTF-8 bytes of each event's canonical JSON: what `maxAppendBatchBytes` limits. */
export function appendBatchBytes(events: readonly NewEvent[]): number {
  return events.reduce((sum, event) => sum + utf8ByteLength(canonicalJson(event)), 0);
}

/**
 * Every check an append makes before it touches storage: stream id, expected revision, batch
 * shape, each event's envelope, duplicate ids within the batch, limits and known secrets. It
 * throws a typed StorageError or returns the batch ready to write. Adapters call this first,
 * so nothing is ever half-written because of bad input.
 */
export function prepareAppend(config: StorageConfig, streamId: string, expectedRevision: number, events: readonly NewEvent[]): PreparedAppend {
  try {
    return checkAppend(config, streamId, expectedRevision, events);
  } catch (error) {
    // A refusal quotes the caller's input (a stream id, a key in a JSON path); never let it
    // carry a known secret into a log.
    throw withoutKnownSecrets(error, config.knownSecrets);
  }
}

function checkAppend(config: StorageConfig, streamId: string, expectedRevision: number, events: readonly NewEvent[]): PreparedAppend {
  assertStreamId(streamId);
  // Adapters write the stream id too (in each record, a file name, a column), so screen it.
  if (config.knownSecrets.some((secret) => streamId.includes(secret))) {
    throw new StorageError('KNOWN_SECRET', 'The stream id contains a known secret; nothing was written.', { details: { field: 'streamId' } });
  }
  assertRevision(expectedRevision, 'expectedRevision');
  if (!Array.isArray(events) || events.length === 0) {
    throw new StorageError('INVALID_STORED_VALUE', 'An append needs a non-empty array of events.');
  }
  const count = events.length;
  if (Object.keys(events).length !== count) throw new StorageError('INVALID_STORED_VALUE', 'An append batch must not be sparse.');
  if (!Number.isSafeInteger(expectedRevision + count)) throw new StorageError('INVALID_STORED_VALUE', 'The batch would pass the largest safe revision.');

  const stored: StoredEvent[] = [];
  const texts: string[] = [];
  const eventIds: string[] = [];
  const seen = new Set<string>();
  let batchBytes = 0;
  for (let index = 0; index < count; index++) {
    const event: unknown = events[index];
    assertNewEventEnvelope(event, `events[${index}]`);
    const frozen = frozenPayload(event.payload, `events[${index}]`);
    const payload = frozen.text;
    if (seen.has(event.eventId)) {
      throw new StorageError('DUPLICATE_EVENT_ID', `Event id ${JSON.stringify(event.eventId)} appears twice in the batch.`, {
        details: { eventId: event.eventId },
      });
    }
    seen.add(event.eventId);
    const payloadBytes = frozen.bytes;
    if (payloadBytes > config.limits.maxEventPayloadBytes) {
      throw new StorageError('STORAGE_LIMIT_EXCEEDED', `events[${index}] payload is ${payloadBytes} bytes, over the limit of ${config.limits.maxEventPayloadBytes}.`, {
        details: { limit: 'maxEventPayloadBytes', bytes: payloadBytes, max: config.limits.maxEventPayloadBytes, index },
      });
    }
    const eventText = newEventText(event, payload);
    batchBytes += utf8ByteLength(eventText);
    const secretAt = findKnownSecret(event, config.knownSecrets, eventText);
    if (secretAt !== null) {
      throw new StorageError('KNOWN_SECRET', `events[${index}] contains a known secret (at ${secretAt || 'the event text'}); nothing was written.`, {
        details: { index, path: secretAt },
      });
    }
    const text = storedEventText(event, payload, streamId, expectedRevision + index + 1);
    texts.push(text);
    stored.push(storedEvent(event, frozen.value, streamId, expectedRevision + index + 1));
    eventIds.push(event.eventId);
  }
  if (batchBytes > config.limits.maxAppendBatchBytes) {
    throw new StorageError('STORAGE_LIMIT_EXCEEDED', `The batch is ${batchBytes} bytes, over the limit of ${config.limits.maxAppendBatchBytes}.`, {
      details: { limit: 'maxAppendBatchBytes', bytes: batchBytes, max: config.limits.maxAppendBatchBytes },
    });
  }
  return { streamId, expectedRevision, nextHead: expectedRevision + count, events: stored, texts, eventIds };
}

// The canonical JSON of an event, assembled around the payload's canonical text so the payload
// is walked once. Keys in code-unit order; the other fields are checked identifiers, numbers or null.
const field = (value: string | null) => (value === null ? 'null' : JSON.stringify(value));

function newEventText(event: NewEvent, payload: string): string {
  return `{"causationId":${field(event.causationId)},"correlationId":${field(event.correlationId)},"eventId":${field(event.eventId)},"payload":${payload},"timestamp":${field(event.timestamp)},"type":${field(event.type)},"version":${event.version}}`;
}

/**
 * The canonical JSON of a stored event: exactly the text `prepareAppend` gave in `texts` for
 * it, for an adapter that keeps events and not their texts (the byte-identical retry check).
 */
export function storedEventCanonicalText(event: StoredEvent): string {
  return canonicalJson(event);
}

/** The stored event as a deep-frozen object, keys in canonical order (as parsing its text gives). */
function storedEvent(event: NewEvent, payload: Json, streamId: string, revision: number): StoredEvent {
  const { causationId, correlationId, eventId, timestamp, type, version } = event;
  const fields = { causationId, correlationId, envelopeVersion: ENVELOPE_VERSION, eventId, payload, revision, streamId, timestamp, type, version };
  return copyFrozenJson(fields as unknown as Json) as unknown as StoredEvent;
}

function storedEventText(event: NewEvent, payload: string, streamId: string, revision: number): string {
  return `{"causationId":${field(event.causationId)},"correlationId":${field(event.correlationId)},"envelopeVersion":${ENVELOPE_VERSION},"eventId":${field(event.eventId)},"payload":${payload},"revision":${revision},"streamId":${field(streamId)},"timestamp":${field(event.timestamp)},"type":${field(event.type)},"version":${event.version}}`;
}

/**
 * The rule every adapter applies, under its own exclusion, once it knows the current head:
 * - head equals the expected revision: go on (then check stream-wide duplicate ids);
 * - the events already committed at expected+1 … expected+n are byte-identical to the batch: a
 *   retry of a committed append, so return that batch's head and write nothing;
 * - otherwise REVISION_CONFLICT with both revisions.
 * `committedTexts` reads the canonical text of stored events in a revision range (inclusive).
 */
export async function resolveAgainstHead(
  prepared: PreparedAppend,
  head: number,
  committedTexts: (from: number, to: number) => Promise<readonly string[]> | readonly string[],
): Promise<'write' | number> {
  if (head === prepared.expectedRevision) return 'write';
  if (head >= prepared.nextHead) {
    const committed = await committedTexts(prepared.expectedRevision + 1, prepared.nextHead);
    if (committed.length === prepared.texts.length && committed.every((text, i) => text === prepared.texts[i])) return prepared.nextHead;
  }
  throw revisionConflict(prepared.expectedRevision, head);
}

export function revisionConflict(expectedRevision: number, actualRevision: number): StorageError {
  return new StorageError('REVISION_CONFLICT', `Expected revision ${expectedRevision} but the stream is at ${actualRevision}.`, {
    details: { expectedRevision, actualRevision },
  });
}

export function duplicateEventId(eventId: string, streamId: string): StorageError {
  return new StorageError('DUPLICATE_EVENT_ID', `Event id ${JSON.stringify(eventId)} is already in stream ${streamId}.`, {
    details: { eventId, streamId },
  });
}

/** Reads of damaged data fail closed with this. */
export function corruptStream(streamId: string, message: string, cause?: unknown): StorageError {
  return new StorageError('CORRUPT_EVENT_STREAM', `Stream ${streamId} is damaged: ${message}`, { details: { streamId }, cause });
}
