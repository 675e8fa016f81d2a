// Types only (storage is a dev dependency of graph, nothing of it is loaded): graph does no I/O
// of its own; the view reads and writes through the storage it is given.
import type { EventRead, NewEvent, RunStorage, StoredEvent } from '@roundtable/storage';
import { privateSlot } from '@roundtable/core';
import { GraphExecutionError } from './graphExecutionError.js';
import { MAX_FORK_DEPTH, isRunForkedEvent, parseRunForkedEvent } from './runForkedEvent.js';
import type { RunForked } from './runForkedEvent.js';
import type { RecordReader, RecordedEvent } from './recordedEvent.js';

/**
 * An event as a run's readers see it: `revision` is its run revision. A fork's own events also
 * carry `streamRevision`, their revision in the fork's stream (run revision = the fork point +
 * stream revision); the prefix's events are the parent's, as the parent's run reads them.
 */
export type RunEvent = StoredEvent & { readonly streamRevision?: number };

/** Where a stream's run begins: a run of its own (`base` 0), or a fork of `parent` at run revision `base`. */
interface Lineage {
  readonly base: number;
  readonly parent: string | null;
  /** 0 for a run that is not a fork; a fork's is its parent's plus 1. */
  readonly depth: number;
}

const ROOT: Lineage = Object.freeze({ base: 0, parent: null, depth: 0 });

/** Streams whose lineage is known, per view; cleared when it grows past this (a root costs one read to learn again). */
const MAX_KNOWN_LINEAGES = 10_000;

/** Views made by `runView`/`runReader`, each holding the reader it reads from: a view of a view is the view itself. */
const views = privateSlot<RecordReader<StoredEvent>>();

/** The stored reads under `reader`: the reader a view reads from, or `reader` itself. */
function storedReader(reader: RecordReader): RecordReader<StoredEvent> {
  return views.get(reader) ?? (reader as unknown as RecordReader<StoredEvent>);
}

/**
 * The reads of `reader` as a run's readers see them (SPEC 21): a fork's stream reads as its run,
 * the parent's events 1..`at` (recursively for a fork of a fork) and then the fork's own events,
 * every `revision` a run revision. A stream that is not a fork reads as it is stored, through the
 * reader's own read (its fast path kept). `foldStream`, `readRunDefinition` and `followRun` read
 * through one; a reader that is one already is returned as it is.
 */
export function runReader<Event extends RecordedEvent>(reader: RecordReader<Event>): RecordReader<Event> {
  if (views.has(reader)) return reader;
  const lineages = new Lineages(reader as unknown as RecordReader<StoredEvent>);
  return views.add({ read: (streamId: string, options?: { readonly after?: number }) => lineages.read(streamId, options?.after ?? 0) as unknown as EventRead<Event> }, lineages.reader);
}

/**
 * `storage` as a run's readers and writers see it: `read` as `runReader` reads, `head` and every
 * revision `append` takes and returns in run revisions (a fork's stream revision k is run
 * revision `at + k`), `streams` with each run's head. The executor, `answerPause`, `cancelRun`,
 * `forkRun`, rooms, the CLI, the viewer, workers and `team` each use one, so a fork is read and
 * continued like any run; stream revisions appear only in the storage's own API.
 */
export function runView(storage: RunStorage): RunStorage {
  if (views.has(storage)) return storage;
  const lineages = new Lineages(storage);
  const view: RunStorage = {
    identity: storage.identity,
    head: async (streamId) => {
      const head = await storage.head(streamId);
      if (head === 0) return 0;
      return head + (await lineages.of(streamId))!.base;
    },
    read: (streamId, options) => lineages.read(streamId, options?.after ?? 0),
    append: async (streamId, expectedRevision, events: readonly NewEvent[]) => {
      // A new stream (a new run, or forkRun's first event) has no lineage yet.
      if (expectedRevision === 0) return storage.append(streamId, 0, events);
      const base = (await lineages.of(streamId))?.base ?? 0;
      // A revision at or before the fork point is behind the fork's head: stream revision 0
      // makes the storage answer REVISION_CONFLICT, as it would for any stale revision.
      return base + (await storage.append(streamId, Math.max(0, expectedRevision - base), events));
    },
    streams: () => runHeads(storage, lineages),
    close: () => storage.close(),
  };
  if (typeof storage.changes === 'function') view.changes = (streamId, signal) => storage.changes!(streamId, signal);
  return views.add(view, storage);
}

async function* runHeads(storage: RunStorage, lineages: Lineages): AsyncGenerator<{ streamId: string; head: number }> {
  for await (const { streamId, head } of storage.streams()) {
    yield { streamId, head: head === 0 ? 0 : head + ((await lineages.of(streamId))?.base ?? 0) };
  }
}

/** The lineage of each stream a view has met, learnt from its first event. */
class Lineages {
  readonly #reader: RecordReader<StoredEvent>;
  readonly #known = new Map<string, Lineage>();

  constructor(reader: RecordReader<StoredEvent>) {
    this.#reader = reader;
  }

  /** The stored reads this view is made of. */
  get reader(): RecordReader<StoredEvent> {
    return this.#reader;
  }

  /** The lineage of `streamId`, or null while it has no events (a first event never changes, so it is kept). */
  async of(streamId: string, depth = 0): Promise<Lineage | null> {
    const known = this.#known.get(streamId);
    if (known !== undefined) return known;
    let first: StoredEvent | undefined;
    for await (const event of this.#reader.read(streamId)) {
      first = event;
      break;
    }
    if (first === undefined) return null;
    return this.#learn(streamId, first, depth);
  }

  /**
   * A read of the whole of `streamId` whose fast path gives its first event now: when that event
   * is not a fork's, the read itself, its first event handed back first (so learning the lineage
   * costs no read of its own); undefined otherwise.
   */
  #wholeRootRead(streamId: string): EventRead | undefined {
    const read = this.#reader.read(streamId) as EventRead;
    if (typeof read.nextChunk !== 'function') return undefined;
    const [first] = read.nextChunk(1);
    if (first === undefined) return read;
    if (isRunForkedEvent(first)) return undefined;
    this.#remember(streamId, ROOT);
    return withFirst(first, read);
  }

  async #learn(streamId: string, first: StoredEvent, depth: number): Promise<Lineage> {
    if (!isRunForkedEvent(first)) return this.#remember(streamId, ROOT);
    const forked = parseRunForkedEvent(first);
    if (depth >= MAX_FORK_DEPTH) {
      throw new GraphExecutionError('INVALID_EVENT', `Run ${streamId} is a fork more than ${MAX_FORK_DEPTH} levels deep (or its parents form a loop).`, {
        details: { runId: streamId, revision: first.revision, type: first.type, eventId: first.eventId },
      });
    }
    const parent = await this.of(forked.from, depth + 1);
    if (parent === null) throw prefixMissing(streamId, forked.from, forked.at, 0);
    return this.#remember(streamId, { base: forked.at, parent: forked.from, depth: parent.depth + 1 });
  }

  #remember(streamId: string, lineage: Lineage): Lineage {
    if (this.#known.size >= MAX_KNOWN_LINEAGES) this.#known.clear();
    this.#known.set(streamId, lineage);
    return lineage;
  }

  /** The run `streamId` after run revision `after`. */
  read(streamId: string, after: number): EventRead {
    const known = this.#known.get(streamId);
    // A run that is not a fork is read as it is stored: the reader's own read, fast path kept.
    if (known === ROOT) return this.#reader.read(streamId, { after }) as EventRead;
    if (known === undefined) {
      const whole = this.#wholeRootRead(streamId);
      // From revision 0 the probe is the read itself; later, a read of its own from where asked.
      if (whole !== undefined) return after === 0 ? whole : (this.#reader.read(streamId, { after }) as EventRead);
    }
    return { [Symbol.asyncIterator]: () => this.#readRun(streamId, after) };
  }

  async *#readRun(streamId: string, after: number): AsyncGenerator<RunEvent> {
    if (after === 0 && !this.#known.has(streamId)) {
      // The whole stream is read anyway: its first event tells the lineage, with no read of its own.
      const iterator = (this.#reader.read(streamId))[Symbol.asyncIterator]();
      const first = await iterator.next();
      if (first.done === true) return;
      if (!isRunForkedEvent(first.value)) {
        this.#remember(streamId, ROOT);
        yield first.value;
        yield* { [Symbol.asyncIterator]: () => iterator };
        return;
      }
      await iterator.return?.();
      await this.#learn(streamId, first.value, 0);
    }
    const lineage = await this.of(streamId);
    if (lineage === null || lineage.parent === null) {
      yield* this.#reader.read(streamId, { after });
      return;
    }
    const { base, parent } = lineage;
    if (after < base) {
      let last = after;
      for await (const event of this.#readRun(parent, after)) {
        if (event.revision > base) break;
        last = event.revision;
        yield event;
      }
      if (last < base) throw prefixMissing(streamId, parent, base, last);
    }
    for await (const event of this.#reader.read(streamId, { after: Math.max(0, after - base) })) {
      yield Object.freeze({ ...event, revision: base + event.revision, streamRevision: event.revision });
    }
  }
}

/** INVALID_EVENT: the parent of a fork holds fewer events than the fork continues from. */
function prefixMissing(runId: string, parent: string, at: number, found: number): GraphExecutionError {
  return new GraphExecutionError('INVALID_EVENT', `Run ${runId} is a fork of ${parent} at revision ${at}, but ${parent} holds only ${found} events: its parent changed under it.`, {
    details: { runId, parent, at, found },
  });
}

/**
 * How deep a fork `runId` is (0 for a run that is not a fork, a fork's parent's depth plus 1),
 * or null when the stream has no events. Reads the first event of the run and of each parent.
 */
export async function forkDepth(reader: RecordReader, runId: string): Promise<number | null> {
  const lineage = await new Lineages(storedReader(reader)).of(runId);
  return lineage === null ? null : lineage.depth;
}

/**
 * The fork `runId` is, from its stream's first event as stored (`reader` may be a view), or null
 * for a run that is not a fork or has no events. Reads one event.
 */
export async function forkOf(reader: RecordReader, runId: string): Promise<RunForked | null> {
  for await (const event of storedReader(reader).read(runId)) return isRunForkedEvent(event) ? parseRunForkedEvent(event) : null;
  return null;
}

/** `read` with `first`, taken from it already, handed back before the rest, on both paths. */
function withFirst(first: StoredEvent, read: EventRead): EventRead {
  let pending: StoredEvent | null = first;
  return {
    async *[Symbol.asyncIterator]() {
      if (pending !== null) {
        const event = pending;
        pending = null;
        yield event;
      }
      yield* read;
    },
    nextChunk(max: number) {
      if (pending === null) return read.nextChunk!(max);
      const event = pending;
      pending = null;
      return max <= 1 ? [event] : [event, ...read.nextChunk!(max - 1)];
    },
  };
}
