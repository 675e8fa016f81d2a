import type { StoredEvent } from '@roundtable/storage';

/** The envelope fields an event of a stream rarely differs in from the stream's first event. */
interface RareFields {
  readonly correlationId: string;
  readonly version: number;
}

/**
 * One stream as the memory adapter keeps it: one column per envelope field that varies from
 * event to event (ids, types, timestamps, causation ids, deep-frozen payloads), the event at
 * revision `r` at index `r - 1` of each. The stream id and envelope version are the stream's;
 * the correlation id and event version are kept once, as the first event's, with a sparse map
 * for the events that differ. Five pointers per event instead of a ten-field object: strings
 * and payloads are the very values `prepareAppend` made (a payload shared with the writer's
 * frozen value, a causation id usually the same string as the id it names), never copies.
 * Reads build a frozen envelope around them. The canonical text a byte-identical retry is
 * compared with is written again from the event when a retry asks, never kept.
 */
export class MemoryStream {
  readonly streamId: string;
  readonly eventIds = new Set<string>();
  readonly #ids: string[] = [];
  readonly #types: string[] = [];
  readonly #timestamps: string[] = [];
  readonly #causations: (string | null)[] = [];
  readonly #payloads: StoredEvent['payload'][] = [];
  #common: RareFields | null = null;
  readonly #rare = new Map<number, RareFields>();

  constructor(streamId: string) {
    this.streamId = streamId;
  }

  /** The head: how many events the stream holds. */
  get length(): number {
    return this.#ids.length;
  }

  push(event: StoredEvent): void {
    const index = this.#ids.length;
    this.#common ??= { correlationId: event.correlationId, version: event.version };
    if (event.correlationId !== this.#common.correlationId || event.version !== this.#common.version) {
      this.#rare.set(index, { correlationId: event.correlationId, version: event.version });
    }
    this.#ids.push(event.eventId);
    this.#types.push(event.type);
    this.#timestamps.push(event.timestamp);
    this.#causations.push(event.causationId);
    this.#payloads.push(event.payload);
    this.eventIds.add(event.eventId);
  }

  /** The event at `revision` (1 … length), as a frozen envelope around the kept values. */
  at(revision: number): StoredEvent {
    const index = revision - 1;
    const { correlationId, version } = this.#rare.get(index) ?? this.#common!;
    // The key order of `prepareAppend`'s stored events (canonical order), so the two are equal.
    return Object.freeze({
      causationId: this.#causations[index]!,
      correlationId,
      envelopeVersion: 1,
      eventId: this.#ids[index]!,
      payload: this.#payloads[index]!,
      revision,
      streamId: this.streamId,
      timestamp: this.#timestamps[index]!,
      type: this.#types[index]!,
      version,
    });
  }
}
