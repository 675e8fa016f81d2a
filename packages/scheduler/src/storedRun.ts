import { GraphExecutionError, compileGraph, readRunDefinition } from '@roundtable/graph';
import type { CompiledGraph, GraphDefinitionInput, GraphType, StoredRunDefinition } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';

/**
 * A stored run's definition, compiled with the one of `types` that wrote it: what an action
 * from outside the run's program folds the record with. A run with no events is RUN_NOT_FOUND,
 * a type not among `types` UNKNOWN_GRAPH_TYPE, a first event that is not a run start INVALID_EVENT.
 */
export async function compileStoredRun(
  storage: RunStorage,
  runId: string,
  types: readonly GraphType<unknown>[],
): Promise<{ readonly stored: StoredRunDefinition; readonly graph: CompiledGraph<unknown> }> {
  const stored = await readRunDefinition(storage, runId);
  if (stored === null) throw new GraphExecutionError('RUN_NOT_FOUND', `Run ${runId} has no events in this store.`, { details: { runId } });
  const type = types.find((candidate) => candidate.kind === stored.kind && candidate.version === stored.typeVersion);
  if (type === undefined) {
    const known = types.map((candidate) => `${candidate.kind} v${candidate.version}`).join(', ');
    throw new GraphExecutionError('UNKNOWN_GRAPH_TYPE', `Run ${runId} was written by graph type ${stored.kind} v${stored.typeVersion}, which is not among the types given (${known}).`, {
      details: { runId, kind: stored.kind, typeVersion: stored.typeVersion },
    });
  }
  return { stored, graph: compileGraph(type, stored.value as unknown as GraphDefinitionInput) };
}
