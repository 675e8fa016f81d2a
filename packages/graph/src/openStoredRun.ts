import type { CompiledGraph, GraphDefinitionInput } from './compileGraph.js';
import { compileGraph } from './compileGraph.js';
import { foldStream } from './foldStream.js';
import { GraphExecutionError } from './graphExecutionError.js';
import type { GraphType } from './graphType.js';
import type { RecordReader, RecordedEvent } from './recordedEvent.js';
import type { RunRecordFolder } from './runRecordFolder.js';
import { readRunDefinition } from './runStartedEvent.js';
import type { StoredRunDefinition } from './runStartedEvent.js';

/** A stored run opened with its stored definition: the definition, the graph compiled from it and the whole record folded. */
export interface StoredRun {
  readonly stored: StoredRunDefinition;
  readonly graph: CompiledGraph<unknown>;
  readonly folder: RunRecordFolder<unknown>;
}

export interface OpenStoredRunOptions<Event extends RecordedEvent> {
  /** The graph types that may have written the run; the one of the stored kind and version compiles it. */
  readonly types: readonly GraphType<unknown>[];
  /** Called with each event after the fold applied it. */
  readonly onEvent?: (event: Event) => void;
}

/**
 * The graph a stored definition compiles to with the one of `types` that wrote it (same kind
 * and version): UNKNOWN_GRAPH_TYPE when none did; a definition the type refuses throws its
 * GraphValidationError.
 */
export function compileStoredDefinition(stored: StoredRunDefinition, types: readonly GraphType<unknown>[], runId: string): CompiledGraph<unknown> {
  const type = types.find((candidate) => candidate.kind === stored.kind && candidate.version === stored.typeVersion);
  if (type === undefined) {
    const known = types.map((candidate) => `${candidate.kind} v${candidate.version}`).join(', ');
    throw new GraphExecutionError('UNKNOWN_GRAPH_TYPE', `Run ${runId} was written by graph type ${stored.kind} v${stored.typeVersion}, which is not among the types given (${known}).`, {
      details: { runId, kind: stored.kind, typeVersion: stored.typeVersion },
    });
  }
  return compileGraph(type, stored.value as unknown as GraphDefinitionInput);
}

/**
 * Opens a stored run with its stored definition, the one way every reader from outside the
 * run's program does (answers, the workers' status, the CLI, `team`): reads the definition
 * from revision 1, compiles it (`compileStoredDefinition`) and folds the whole record. A run
 * with no events is RUN_NOT_FOUND; a record that does not fit throws the fold's INVALID_EVENT.
 */
export async function openStoredRun<Event extends RecordedEvent>(reader: RecordReader<Event>, runId: string, options: OpenStoredRunOptions<Event>): Promise<StoredRun> {
  const stored = await readRunDefinition(reader, runId);
  if (stored === null) throw new GraphExecutionError('RUN_NOT_FOUND', `Run ${runId} has no events in this store.`, { details: { runId } });
  const graph = compileStoredDefinition(stored, options.types, runId);
  const folder = await foldStream(reader, runId, { graph, ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }) });
  return { stored, graph, folder };
}
