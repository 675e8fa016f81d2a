import type { Json } from '@roundtable/core';
import type { CompiledGraph } from './compileGraph.js';
import { GraphExecutionError } from './graphExecutionError.js';
import { GRAPH_EVENT_VERSION, GraphEventTypes } from './graphEventTypes.js';
import { isRecord } from './json.js';
import { invalidEvent } from './recordedEvent.js';
import type { RecordReader, RecordedEvent } from './recordedEvent.js';
import { runReader } from './runView.js';

/** What `graph:run-started` stores about the graph. */
export interface StoredRunDefinition {
  readonly kind: string;
  readonly typeVersion: number;
  readonly digest: string;
  readonly value: Json;
}

/** The run-started payload for a compiled graph. */
export function runStartedPayload<State>(graph: CompiledGraph<State>): { definition: StoredRunDefinition } {
  return {
    definition: { kind: graph.kind, typeVersion: graph.typeVersion, digest: graph.definition.digest, value: graph.definition.value },
  };
}

/**
 * Reads the stored definition out of a run's first event, checking that it is a version-1
 * `graph:run-started` at revision 1 with exactly `{ definition: { kind, typeVersion, digest, value } }`.
 */
export function parseRunStartedEvent(event: RecordedEvent): StoredRunDefinition {
  if (event.type !== GraphEventTypes.RUN_STARTED || event.revision !== 1) {
    throw invalidEvent(event, 'a run must start with graph:run-started at revision 1.');
  }
  if (event.version !== GRAPH_EVENT_VERSION) throw invalidEvent(event, `version ${event.version} is not supported (only 1).`);
  const payload = event.payload;
  if (!isRecord(payload) || Object.keys(payload).length !== 1 || !isRecord(payload.definition)) {
    throw invalidEvent(event, 'payload must be exactly { definition }.');
  }
  return parseStoredDefinition(event, payload.definition);
}

/** Checks a stored definition (of `graph:run-started` or `graph:run-forked`): exactly `{ kind, typeVersion, digest, value }`. */
export function parseStoredDefinition(event: RecordedEvent, value: Json | undefined): StoredRunDefinition {
  if (!isRecord(value)) throw invalidEvent(event, 'definition must be { kind, typeVersion, digest, value }.');
  const definition = value as Record<string, Json>;
  if (
    Object.keys(definition).length !== 4 ||
    typeof definition.kind !== 'string' ||
    typeof definition.typeVersion !== 'number' ||
    typeof definition.digest !== 'string' ||
    !('value' in definition)
  ) {
    throw invalidEvent(event, 'definition must be { kind, typeVersion, digest, value }.');
  }
  return { kind: definition.kind, typeVersion: definition.typeVersion, digest: definition.digest, value: definition.value! };
}

/**
 * The definition a stored run was started with, read from its first event, or null when the
 * run has no events yet. A first event that is not a valid `graph:run-started` is INVALID_EVENT.
 * Reads one event (a fork's is its root's: a fork keeps the definition in force at its fork point).
 */
export async function readRunDefinition(reader: RecordReader, runId: string): Promise<StoredRunDefinition | null> {
  for await (const event of runReader(reader).read(runId)) return parseRunStartedEvent(event);
  return null;
}

/**
 * STORED_GRAPH_MISMATCH when the stored definition is not `graph`'s (another kind, type
 * version or digest), else null: a run is only ever continued with the graph that started it.
 */
export function storedGraphMismatch<State>(stored: StoredRunDefinition, graph: CompiledGraph<State>): GraphExecutionError | null {
  if (stored.kind === graph.kind && stored.typeVersion === graph.typeVersion && stored.digest === graph.definition.digest) return null;
  return new GraphExecutionError(
    'STORED_GRAPH_MISMATCH',
    `The run holds a ${stored.kind} graph v${stored.typeVersion} (${stored.digest}), not this ${graph.kind} graph v${graph.typeVersion} (${graph.definition.digest}). ` +
      'A run keeps the graph it started with: run the changed graph under a new run id, or open this run with the graph it was started with (openStoredRun, or the scheduler\'s loadRunDefinition, reads it from the record).',
    { details: { stored: { kind: stored.kind, typeVersion: stored.typeVersion, digest: stored.digest } } },
  );
}
