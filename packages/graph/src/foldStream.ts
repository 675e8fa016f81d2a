// A type only (storage is a dev dependency of graph, nothing of it is loaded): the port defines the fast path once.
import type { EventRead } from '@roundtable/storage';
import type { CompiledGraph } from './compileGraph.js';
import { GraphExecutionError } from './graphExecutionError.js';
import type { RecordReader, RecordedEvent } from './recordedEvent.js';
import { RunRecordFolder } from './runRecordFolder.js';
import { runReader } from './runView.js';

interface FoldStreamHooks<Event> {
  /** Called with each event after the folder applied it (so only with events that fit the record). */
  readonly onEvent?: (event: Event) => void;
}

/** Start a new folder over `graph` and fold the whole record from revision 1. */
export interface FoldNewStreamOptions<State, Event> extends FoldStreamHooks<Event> {
  readonly graph: CompiledGraph<State>;
  readonly folder?: never;
}

/** Continue `folder`: fold only the events after `folder.revision`. */
export interface FoldMoreStreamOptions<State, Event> extends FoldStreamHooks<Event> {
  readonly folder: RunRecordFolder<State>;
  readonly graph?: never;
}

export type FoldStreamOptions<State, Event> = FoldNewStreamOptions<State, Event> | FoldMoreStreamOptions<State, Event>;

/**
 * Reads the run `runId` from `reader` and folds it: the whole record into a new folder
 * (`{ graph }`), or what is new since `folder.revision` into a folder the caller keeps
 * (`{ folder }`). The read starts at the folder's revision, never elsewhere, so a fold cannot
 * skip or repeat an event. After the read it checks that no dispatch batch was cut short
 * (`endOfRead`). Returns the folder. A record that does not fit throws the fold's
 * INVALID_EVENT or STORED_GRAPH_MISMATCH; a failing read throws the storage's error. A fork
 * (SPEC 21) is folded as its run: its parent's events up to the fork point, then its own, every
 * revision a run revision (`runReader`).
 */
export async function foldStream<State, Event extends RecordedEvent>(
  reader: RecordReader<Event>,
  runId: string,
  options: FoldStreamOptions<State, Event>,
): Promise<RunRecordFolder<State>> {
  const folder = folderOf(reader, options);
  const onEvent = options.onEvent;
  // Any reader's read may offer the port's optional synchronous fast path (a memory storage's
  // does); a fork is read as its run (the parent's prefix, then its own events).
  const events: EventRead<Event> = runReader(reader).read(runId, { after: folder.revision });
  if (typeof events.nextChunk === 'function') {
    for (let chunk = events.nextChunk(CHUNK_EVENTS); chunk.length > 0; chunk = events.nextChunk(CHUNK_EVENTS)) {
      for (const event of chunk) {
        folder.apply(event);
        onEvent?.(event);
      }
      // One turn of the microtask queue per chunk, as the async iteration gave other work one per event.
      await Promise.resolve();
    }
  } else {
    for await (const event of events) {
      folder.apply(event);
      onEvent?.(event);
    }
  }
  folder.endOfRead();
  return folder;
}

/** How many events one call of the fast path takes. */
const CHUNK_EVENTS = 1024;

function folderOf<State, Event extends RecordedEvent>(reader: RecordReader<Event>, options: FoldStreamOptions<State, Event>): RunRecordFolder<State> {
  if (typeof reader !== 'object' || reader === null || typeof reader.read !== 'function') {
    throw new GraphExecutionError('PROTOCOL', 'foldStream needs a storage (an object with a read method) to read the run from.');
  }
  if (typeof options !== 'object' || options === null) throw new GraphExecutionError('PROTOCOL', 'foldStream needs options { graph } or { folder }.');
  const { folder, graph } = options as { folder?: unknown; graph?: unknown };
  if ((folder === undefined) === (graph === undefined)) {
    throw new GraphExecutionError('PROTOCOL', 'foldStream takes exactly one of { graph } (a new fold) and { folder } (continue a fold).');
  }
  if (folder !== undefined) {
    // Structural, so a folder from another installed copy of this package works too.
    if (!hasMethods(folder, 'apply', 'endOfRead')) throw new GraphExecutionError('PROTOCOL', 'foldStream: folder must be a RunRecordFolder.');
    return folder as RunRecordFolder<State>;
  }
  if (!hasMethods(graph, 'initialState', 'reduce', 'decide')) throw new GraphExecutionError('PROTOCOL', 'foldStream: graph must be a compiled graph (compileGraph).');
  return new RunRecordFolder(graph as CompiledGraph<State>);
}

function hasMethods(value: unknown, ...names: string[]): boolean {
  return typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}
