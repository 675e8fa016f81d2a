import type { FrozenJson, Json } from '@roundtable/core';
import { StorageError } from './errors.js';
import { ENVELOPE_VERSION } from './events.js';
import type { NewEvent, StoredEvent } from './events.js';
import { findKnownSecret, withoutKnownSecrets } from './knownSecrets.js';
import type { StorageConfig } from './resolveStorageOptions.js';
import { newEventText, newEventTextBytes, storedEventText } from './storedEventCanonicalText.js';
import { assertNewEventEnvelope, assertRevision, assertStreamId, frozenPayload, isCheckedEnvelope } from './validation.js';

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
  /** The canonical JSON of each stored event, what adapters write and compare (written on first read). */
  readonly texts: readonly string[];
  readonly eventIds: readonly string[];
}

/**
 * Every check an append makes before it touches storage: a read-only instance (STORAGE_READ_ONLY,
 * first), stream id, expected revision, batch shape, each event's envelope, duplicate ids within
 * the batch, limits and known secrets. It throws a typed StorageError or returns the batch ready
 * to write. Adapters call this first, so nothing is ever half-written because of bad input.
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
  if (config.readOnly) throw new StorageError('STORAGE_READ_ONLY', 'This storage was opened with readOnly: true, which never appends; nothing was written.');
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
  const payloads: FrozenJson[] = [];
  const eventIds: string[] = [];
  // Ids seen so far in the batch: compared one by one in a small batch (a serial turn writes
  // three events), kept in a Set in a larger one.
  const seen = count > 8 ? new Set<string>() : null;
  let batchBytes = 0;
  for (let index = 0; index < count; index++) {
    const event: unknown = events[index];
    // An event `checkedNewEvent` built and accepted cannot have changed since (proven redundant).
    if (!isCheckedEnvelope(event)) assertNewEventEnvelope(event, `events[${index}]`);
    const frozen = frozenPayload(event.payload, `events[${index}]`);
    if (seen === null ? eventIds.includes(event.eventId) : seen.has(event.eventId)) {
      throw new StorageError('DUPLICATE_EVENT_ID', `Event id ${JSON.stringify(event.eventId)} appears twice in the batch.`, {
        details: { eventId: event.eventId },
      });
    }
    seen?.add(event.eventId);
    const payloadBytes = frozen.bytes;
    if (payloadBytes > config.limits.maxEventPayloadBytes) {
      throw new StorageError('STORAGE_LIMIT_EXCEEDED', `events[${index}] payload is ${payloadBytes} bytes, over the limit of ${config.limits.maxEventPayloadBytes}.`, {
        details: { limit: 'maxEventPayloadBytes', bytes: payloadBytes, max: config.limits.maxEventPayloadBytes, index },
      });
    }
    const revision = expectedRevision + index + 1;
    batchBytes += newEventTextBytes(event, payloadBytes);
    // The new event's own text is written out only when there are secrets to look for in it.
    const secretAt = config.knownSecrets.length === 0 ? null : findKnownSecret(event, config.knownSecrets, newEventText(event, frozen.text));
    if (secretAt !== null) {
      throw new StorageError('KNOWN_SECRET', `events[${index}] contains a known secret (at ${secretAt || 'the event text'}); nothing was written.`, {
        details: { index, path: secretAt },
      });
    }
    // Its text is written only when the adapter reads `texts` (a memory adapter never needs it).
    payloads.push(frozen);
    stored.push(storedEvent(event, frozen.value, streamId, revision));
    eventIds.push(event.eventId);
  }
  if (batchBytes > config.limits.maxAppendBatchBytes) {
    throw new StorageError('STORAGE_LIMIT_EXCEEDED', `The batch is ${batchBytes} bytes, over the limit of ${config.limits.maxAppendBatchBytes}.`, {
      details: { limit: 'maxAppendBatchBytes', bytes: batchBytes, max: config.limits.maxAppendBatchBytes },
    });
  }
  return new PreparedBatch(streamId, expectedRevision, stored, payloads, eventIds);
}

/**
 * A prepared batch. Its texts are written when an adapter first reads them: one that keeps the
 * events themselves (memory) reads them only to compare a retried batch, and never pays for
 * them otherwise. They are written from the frozen stored events and their payloads' canonical
 * texts, so they are the same whenever they are read.
 */
class PreparedBatch implements PreparedAppend {
  readonly streamId: string;
  readonly expectedRevision: number;
  readonly nextHead: number;
  readonly events: readonly StoredEvent[];
  readonly eventIds: readonly string[];
  #payloads: readonly FrozenJson[];
  #texts: readonly string[] | null = null;

  constructor(streamId: string, expectedRevision: number, events: readonly StoredEvent[], payloads: readonly FrozenJson[], eventIds: readonly string[]) {
    this.streamId = streamId;
    this.expectedRevision = expectedRevision;
    this.nextHead = expectedRevision + events.length;
    this.events = events;
    this.eventIds = eventIds;
    this.#payloads = payloads;
  }

  get texts(): readonly string[] {
    if (this.#texts === null) {
      const payloads = this.#payloads;
      this.#texts = this.events.map((event, index) => storedEventText(event, payloads[index]!.text, event.streamId, event.revision));
      this.#payloads = [];
    }
    return this.#texts;
  }
}

/**
 * The stored event as a deep-frozen object, keys in canonical order (as parsing its text gives).
 * Written as one object literal: its fields are strings, numbers and null the checks above
 * accepted, and the payload is already deep-frozen, so there is nothing left to walk; V8 keeps
 * all ten fields inside the object (no separate property store), which is what a memory
 * adapter holding every event pays for.
 */
function storedEvent(event: NewEvent, payload: Json, streamId: string, revision: number): StoredEvent {
  return Object.freeze({
    causationId: event.causationId,
    correlationId: event.correlationId,
    envelopeVersion: ENVELOPE_VERSION,
    eventId: event.eventId,
    payload,
    revision,
    streamId,
    timestamp: event.timestamp,
    type: event.type,
    version: event.version,
  });
}
