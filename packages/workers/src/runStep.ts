import type { Json } from '@roundtable/core';
import { GraphEventTypes, runStatusOf } from '@roundtable/graph';
import type { NextStep, RunStatus } from '@roundtable/graph';
import { isGraphExecutionError } from '@roundtable/scheduler';
import type { GraphExecutor, GraphRunResult, StepReport } from '@roundtable/scheduler';
import type { NewEvent } from '@roundtable/storage';

/** One job's work on a run: run (or recover, or answer) one position, then take the run as far as the next dispatch. */
export interface StepRequest {
  /** The run's executor, folded up to its record (`RunExecutors`). */
  readonly executor: GraphExecutor;
  /** The position this step owns, or null to only start the run or dispatch its next batch. */
  readonly position: string | null;
  /** Present for a job queued with its answer (by an earlier `resumeRun`): the value to answer the paused position with. */
  readonly resume?: { readonly value: Json };
  readonly signal?: AbortSignal;
}

export interface StepResult {
  /** The run's result when the step ended at one (complete, fail, pause, waiting); null when it dispatched a batch for other steps. */
  readonly result: GraphRunResult | null;
  /** How the run stands after the step, in graph's one vocabulary (`running` once it dispatched a batch). */
  readonly status: RunStatus;
  /** Open positions that need a job: those dispatched by this step, or still waiting. */
  readonly next: readonly string[];
  /** True when this step wrote an attempt start for its position. */
  readonly started: boolean;
  /** True when this step wrote an outcome (completed, failed, paused) for its position. */
  readonly recorded: boolean;
  /** True when this step's outcome was not written because another worker had moved the position on. */
  readonly refused: boolean;
  /** How many events the step wrote. */
  readonly written: number;
}

const OUTCOMES = new Set<string>([GraphEventTypes.NODE_COMPLETED, GraphEventTypes.NODE_FAILED, GraphEventTypes.NODE_PAUSED]);

/**
 * Takes one step of a stored run with the executor's step API: `runAttempt` for a position (a
 * job queued with an answer answers only the pause it finds), `advance` for the job without
 * one. The exactly-once fence is the executor's append at the expected revision: if another
 * worker moved the position on, this step writes nothing for it.
 */
export async function runStep(request: StepRequest): Promise<StepResult> {
  const { executor, position } = request;
  const signal = request.signal === undefined ? {} : { signal: request.signal };
  let report: StepReport;
  if (position === null) report = await executor.advance(signal);
  else {
    try {
      report = await executor.runAttempt(position, { ...signal, ...(request.resume === undefined ? {} : { answer: request.resume }) });
    } catch (error) {
      // Another worker answered the position since the record was read, or the run was
      // cancelled (the answer is the step's first write, so nothing was written): only move the run on.
      if (!(isGraphExecutionError(error, 'PROTOCOL') || isGraphExecutionError(error, 'STALE_ANSWER') || isGraphExecutionError(error, 'RUN_ENDED'))) throw error;
      report = await executor.advance(signal);
    }
  }
  const ours = (event: NewEvent) => position !== null && positionOf(event) === position;
  const dispatched = report.written.filter((event) => event.type === GraphEventTypes.NODE_DISPATCHED).map((event) => positionOf(event)!);
  const result = dispatched.length > 0 ? null : runResult(report.next);
  const waiting = result?.kind === 'waiting' ? result.positions : [];
  const recorded = report.written.some((event) => ours(event) && OUTCOMES.has(event.type));
  return {
    result,
    status: result === null ? 'running' : runStatusOf(result),
    next: [...new Set([...dispatched, ...waiting])].filter((next) => next !== position || result?.kind === 'waiting'),
    started: report.written.some((event) => ours(event) && event.type === GraphEventTypes.NODE_ATTEMPT_STARTED),
    recorded,
    refused: !recorded && report.superseded,
    written: report.written.length,
  };
}

/** The result a step ends at: the run's end, or `waiting` for its open attempts; null before the next dispatch. */
function runResult(next: NextStep): GraphRunResult | null {
  switch (next.kind) {
    case 'attempts':
      return { kind: 'waiting', positions: next.positions };
    case 'start':
    case 'dispatch':
      return null;
    default:
      return next;
  }
}

function positionOf(event: NewEvent): string | null {
  return (event.payload as { position?: string }).position ?? null;
}
