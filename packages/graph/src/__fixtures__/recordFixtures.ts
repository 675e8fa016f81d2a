// Fixtures of the run-record tests: records built by hand, event by event. Not exported from
// the package entry.
import { expect } from 'vitest';
import type { Json } from '@roundtable/core';
import { GraphEventTypes, RunRecordFolder, isGraphExecutionError, runStartedPayload } from '../index.js';
import type { CompiledGraph, RecordedEvent } from '../index.js';

/** One event of a hand-built record: its type and payload (version 1 unless given). */
export type Step = readonly [type: string, payload: Json, version?: number];

/** A record: `graph:run-started` of `graph` at revision 1, then `steps`. */
export function recordOf<State>(graph: CompiledGraph<State>, ...steps: Step[]): RecordedEvent[] {
  const all: Step[] = [[GraphEventTypes.RUN_STARTED, runStartedPayload(graph) as unknown as Json], ...steps];
  return all.map(([type, payload, version], index) => ({ revision: index + 1, eventId: `e${index + 1}`, type, version: version ?? 1, payload }));
}

/** Folds a whole read of `events` into a new folder. */
export function foldAll<State>(graph: CompiledGraph<State>, events: readonly RecordedEvent[]): RunRecordFolder<State> {
  const folder = new RunRecordFolder(graph);
  for (const event of events) folder.apply(event);
  folder.endOfRead();
  return folder;
}

/** The message of the INVALID_EVENT that folding `events` throws (the test fails if it throws nothing or something else). */
export function refusal<State>(graph: CompiledGraph<State>, events: readonly RecordedEvent[]): string {
  try {
    foldAll(graph, events);
  } catch (error) {
    expect(isGraphExecutionError(error, 'INVALID_EVENT'), String(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected INVALID_EVENT, but the record folded');
}

/** Steps about one attempt of `nodeId` at `position`. */
export function attemptSteps(nodeId: string, position: string) {
  return {
    dispatched: [GraphEventTypes.NODE_DISPATCHED, { nodeId, position }] as Step,
    started: (attempt = 1, retrySafe = false): Step => [GraphEventTypes.NODE_ATTEMPT_STARTED, { nodeId, position, attempt, retrySafe }],
    completed: (result: Json = { summary: `${nodeId} done` }): Step => [GraphEventTypes.NODE_COMPLETED, { nodeId, position, result }],
    failed: (code = 'DENIED', message = 'no'): Step => [GraphEventTypes.NODE_FAILED, { nodeId, position, code, message }],
    paused: (reason = 'ask', request: Json = null): Step => [GraphEventTypes.NODE_PAUSED, { nodeId, position, reason, request }],
    resumed: (value: Json = null): Step => [GraphEventTypes.NODE_RESUMED, { nodeId, position, value }],
    retried: (attempt: number, code = 'EFFECT_FAILED'): Step => [GraphEventTypes.NODE_RETRIED, { nodeId, position, attempt, code, message: `attempt ${attempt} failed` }],
  };
}
