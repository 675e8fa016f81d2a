import type { StoredEvent } from '@roundtable/storage';
import { EventIdColumn } from './eventIdColumn.js';
import { Int32Rows, ValuePairs } from './chunkedRows.js';

/** The envelope fields an event of a stream rarely differs in from the stream's first event. */
interface RareFields {
  readonly correlationId: string;
  readonly version: number;
}

/** A causation id not naming an earlier event of the stream: kept as its string. */
const OTHER_CAUSE = -1;
const NO_CAUSE = 0;

/**
 * One stream as the memory adapter keeps it: one column per envelope field that varies from
 * event to event, the event at revision `r` at index `r - 1` of each. Ids are an
 * `EventIdColumn` (16 bytes each for UUIDs, which is also the stream's id set); a causation id
 * naming an event of the stream (what the runtime writes) is kept as that event's revision, any
 * other as its string; a type as its index in the stream's list of types (both in `Int32Rows`);
 * timestamps and deep-frozen payloads as the very values `prepareAppend` made (a payload shared
 * with the writer's frozen value, a timestamp shared by the events of one millisecond). The
 * stream id and envelope version are the stream's; the correlation id and event version are
 * kept once, as the first event's, with a sparse map for the events that differ. Reads build a
 * frozen envelope around them, writing the id strings again. The canonical text a
 * byte-identical retry is compared with is written again from the event when a retry asks,
 * never kept.
 */
export class MemoryStream {
  readonly streamId: string;
  readonly #ids = new EventIdColumn();
  /**
   * Per event: the revision its causation id names (NO_CAUSE for null, OTHER_CAUSE for one in
   * `#otherCauses`), then its type's index in `#typeNames`.
   */
  readonly #codes = new Int32Rows(2);
  readonly #otherCauses = new Map<number, string>();
  readonly #typeNames: string[] = [];
  readonly #typeIndex = new Map<string, number>();
  /** Per event: its timestamp, then its payload. */
  readonly #values = new ValuePairs<string, StoredEvent['payload']>();
  #common: RareFields | null = null;
  readonly #rare = new Map<number, RareFields>();
  /** The id `at` wrote last and its index: the next event's causation id, in a replay. */
  #lastIdIndex = -1;
  #lastId = '';

  constructor(streamId: string) {
    this.streamId = streamId;
  }

  /** The head: how many events the stream holds. */
  get length(): number {
    return this.#ids.length;
  }

  /** True when an event of the stream has this id. */
  hasEventId(eventId: string): boolean {
    return this.#ids.has(eventId);
  }

  push(event: StoredEvent): void {
    const index = this.#ids.length;
    const codes = this.#codes;
    codes.reserve(index);
    const chunk = codes.chunk(index);
    const at = codes.offset(index);
    this.#common ??= { correlationId: event.correlationId, version: event.version };
    if (event.correlationId !== this.#common.correlationId || event.version !== this.#common.version) {
      this.#rare.set(index, { correlationId: event.correlationId, version: event.version });
    }
    const { causationId } = event;
    // Looked up before this event's own id goes in: a causation id naming the event itself is kept as a string.
    const causeIndex = causationId === null ? -1 : this.#ids.indexOf(causationId);
    if (causationId === null) chunk[at] = NO_CAUSE;
    else if (causeIndex !== -1) chunk[at] = causeIndex + 1;
    else {
      chunk[at] = OTHER_CAUSE;
      this.#otherCauses.set(index, causationId);
    }
    let typeCode = this.#typeIndex.get(event.type);
    if (typeCode === undefined) {
      typeCode = this.#typeNames.push(event.type) - 1;
      this.#typeIndex.set(event.type, typeCode);
    }
    chunk[at + 1] = typeCode;
    this.#values.push(index, event.timestamp, event.payload);
    this.#ids.push(event.eventId);
  }

  /** The event at `revision` (1 … length), as a frozen envelope around the kept values. */
  at(revision: number): StoredEvent {
    const index = revision - 1;
    const { correlationId, version } = this.#rare.get(index) ?? this.#common!;
    const chunk = this.#codes.chunk(index);
    const at = this.#codes.offset(index);
    const cause = chunk[at]!;
    const causationId = cause === NO_CAUSE ? null : cause === OTHER_CAUSE ? this.#otherCauses.get(index)! : this.#idAt(cause - 1);
    const eventId = this.#idAt(index);
    this.#lastIdIndex = index;
    this.#lastId = eventId;
    // The key order of `prepareAppend`'s stored events (canonical order), so the two are equal.
    return Object.freeze({
      causationId,
      correlationId,
      envelopeVersion: 1,
      eventId,
      payload: this.#values.second(index),
      revision,
      streamId: this.streamId,
      timestamp: this.#values.first(index),
      type: this.#typeNames[chunk[at + 1]!]!,
      version,
    });
  }

  #idAt(index: number): string {
    return index === this.#lastIdIndex ? this.#lastId : this.#ids.at(index);
  }
}
