import type { Json } from '@roundtable/core';
import { GraphEventTypes } from '@roundtable/graph';
import { createGraphExecutor, isGraphExecutionError } from '@roundtable/scheduler';
import type { GraphRunResult, NodeBinding } from '@roundtable/scheduler';
import type { NewEvent, RunStorage } from '@roundtable/storage';
import { guardStorage, isStepBoundary, positionOf } from './guardedStorage.js';
import type { AnyCompiledGraph } from './teams.js';

/** One job's work on a run: run (or recover, or resume) one position, then take the run as far as the next dispatch. */
export interface StepRequest {
  readonly storage: RunStorage;
  readonly runId: string;
  readonly graph: AnyCompiledGraph;
  readonly nodes: Readonly<Record<string, NodeBinding>>;
  /** The position this step owns, or null to only start the run or dispatch its next batch. */
  readonly position: string | null;
  /** Present for a job queued with its answer (by an earlier `resumeRun`): the value to answer the paused position with. */
  readonly resume?: { readonly value: Json };
  readonly signal?: AbortSignal;
}

export interface StepResult {
  /** The run's result when the step ended at one (complete, fail, pause, waiting); null when it stopped at another step's boundary. */
  readonly result: GraphRunResult | null;
  /** Open positions that need a job: those dispatched by this step, or still waiting. */
  readonly next: readonly string[];
  /** True when this step wrote an attempt start for its position. */
  readonly started: boolean;
  /** True when this step wrote an outcome (completed, failed, paused) for its position. */
  readonly recorded: boolean;
  /** True when the storage refused this step's outcome (REVISION_CONFLICT) because another worker had moved the position on. */
  readonly refused: boolean;
  /** How many events the step wrote. */
  readonly written: number;
}

// SPEC 11.4's event: a failed attempt that the binding retries (attempt + 1 follows).
const NODE_RETRIED = 'graph:node-retried';
const OUTCOMES = new Set<string>([GraphEventTypes.NODE_COMPLETED, GraphEventTypes.NODE_FAILED, GraphEventTypes.NODE_PAUSED]);

/** What the job should do with its position, from the last recorded event about it. */
function plan(lastType: string | null, resume: StepRequest['resume']): 'resume' | 'advance' {
  switch (lastType) {
    case GraphEventTypes.NODE_DISPATCHED:
    case GraphEventTypes.NODE_ATTEMPT_STARTED: // its worker's lease ran out: recover it (retrySafe, or reconcile)
    case NODE_RETRIED:
    case GraphEventTypes.NODE_RESUMED:
      return 'resume';
    case GraphEventTypes.NODE_PAUSED:
      return resume === undefined ? 'advance' : 'resume';
    default:
      return 'advance'; // finished, or not dispatched: only move the run on
  }
}

/**
 * Takes one step of a stored run with the stored executor itself (so every rule of the
 * executor applies unchanged), over a storage that lets the step write only run-started,
 * dispatch batches and events about its own position. The exactly-once fence is the
 * executor's append at the expected revision: if another worker moved the position on, this
 * step writes nothing for it.
 */
export async function runStep(request: StepRequest): Promise<StepResult> {
  const { position } = request;
  const allowed = new Set<string>([GraphEventTypes.RUN_STARTED, GraphEventTypes.NODE_DISPATCHED]);
  const guard = guardStorage(request.storage, (event) => allowed.has(event.type) || (position !== null && positionOf(event) === position));
  const executor = await createGraphExecutor({ runId: request.runId, graph: request.graph, storage: guard.storage, nodes: request.nodes });
  let result: GraphRunResult | null = null;
  try {
    const action = position === null ? 'advance' : plan(guard.lastTypeOf(position), request.resume);
    if (action === 'resume' && position !== null) {
      // A job queued with a value (by a client before `resumeRun` wrote its own answer) answers
      // only the pause it was queued for; any other job recovers or starts the position.
      const answer = request.resume !== undefined && guard.lastTypeOf(position) === GraphEventTypes.NODE_PAUSED ? { value: request.resume.value } : {};
      try {
        result = await executor.resume(position, { ...answer, ...(request.signal === undefined ? {} : { signal: request.signal }) });
      } catch (error) {
        // Another worker answered or finished the position since the record was read: only move the run on.
        if (!(isGraphExecutionError(error, 'PROTOCOL') || isGraphExecutionError(error, 'STALE_ANSWER')) || guard.written.length > 0) throw error;
        result = await executor.run(request.signal);
      }
    } else {
      result = await executor.run(request.signal);
    }
  } catch (error) {
    if (!isStepBoundary(error)) throw error;
  }
  const ours = (event: NewEvent) => position !== null && positionOf(event) === position;
  const dispatched = guard.written.filter((event) => event.type === GraphEventTypes.NODE_DISPATCHED).map((event) => positionOf(event)!);
  // Ready work of other positions (SPEC 20: dispatched and never started, answered, retried) that
  // the executor went on to start, refused here: each needs a job of its own.
  const ready = guard.refused.filter((event) => event.type === GraphEventTypes.NODE_ATTEMPT_STARTED && !ours(event)).map((event) => positionOf(event)!);
  const waiting = [...(result?.kind === 'waiting' ? result.positions : []), ...ready];
  const recorded = guard.written.some((event) => ours(event) && OUTCOMES.has(event.type));
  return {
    result,
    next: [...new Set([...dispatched, ...waiting])].filter((next) => next !== position || result?.kind === 'waiting'),
    started: guard.written.some((event) => ours(event) && event.type === GraphEventTypes.NODE_ATTEMPT_STARTED),
    recorded,
    refused: !recorded && guard.conflicted.some((event) => ours(event) && OUTCOMES.has(event.type)),
    written: guard.written.length,
  };
}
