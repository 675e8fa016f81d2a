import type { Json } from '@roundtable/core';
import type { CompiledGraph } from './compileGraph.js';
import type { DispatchCommand } from './graphCommand.js';
import { GraphExecutionError } from './graphExecutionError.js';
import type { OpenAttempt, RunRecordFolder } from './runRecordFolder.js';

/** One failed member of a failed run: what its `graph:node-failed` recorded. */
export interface RunFailure {
  readonly memberId: string;
  readonly position: string;
  readonly code: string;
  readonly message: string;
}

/** An attempt that can be started now: dispatched and never started, or resumed or retried and not restarted. */
export type ReadyAttempt = OpenAttempt & { readonly status: 'dispatched' | 'resumed' };

/** An attempt that started and has no outcome yet: running somewhere, or left by a process that stopped. */
export type InFlightAttempt = OpenAttempt & { readonly status: 'started' };

/**
 * What happens next in a folded run, as every reader of a run decides it (the executor, the
 * workers, the CLI, `team`):
 * - `start`: the record is empty; the run is started with `graph:run-started`.
 * - `attempts`: attempts are unfinished and not paused, so `decide` is not asked. `ready` can be
 *   started now, `inFlight` have started without an outcome; `positions` is both, in dispatch
 *   order. Every `run` starts the ready ones (SPEC 20), fenced by the attempt-start append;
 *   a run whose only open attempts are in flight is reported `waiting`.
 * - `dispatch`: `decide` returns this batch; its dispatches are appended in one append.
 * - `complete`, `fail`, `pause`: `decide` ends or halts the run; they carry what a
 *   `GraphRunResult` of the same kind reports (`failures` in node declaration order, the first
 *   paused attempt in node declaration order).
 * - `cancelled`: the run was cancelled (`graph:run-cancelled`, SPEC 20) and no started attempt
 *   is left without an outcome; `reason` and `revision` are the cancel's. While started attempts
 *   remain, the step is `attempts` with those `inFlight` and nothing `ready`: nothing starts
 *   after a cancel.
 */
export type NextStep =
  | { readonly kind: 'start' }
  | { readonly kind: 'attempts'; readonly positions: readonly string[]; readonly ready: readonly ReadyAttempt[]; readonly inFlight: readonly InFlightAttempt[] }
  | { readonly kind: 'dispatch'; readonly batch: readonly DispatchCommand[] }
  | { readonly kind: 'complete'; readonly output: Json }
  | { readonly kind: 'fail'; readonly code: string; readonly message: string; readonly failures: readonly RunFailure[] }
  | { readonly kind: 'pause'; readonly reason: string; readonly position: string | null; readonly request: Json }
  | { readonly kind: 'cancelled'; readonly reason: string; readonly revision: number };

/** The steps that end or halt a run. */
export type EndStep = Extract<NextStep, { kind: 'complete' | 'fail' | 'pause' | 'cancelled' }>;

/**
 * What is next in the run `folder` holds, folded over `graph` (pure: it reads the folder and
 * asks `decide` at most once). `decide` returning nothing while no attempt is open is
 * EMPTY_DECISION; a batch that dispatches a position the run already dispatched is
 * DUPLICATE_POSITION: a run cannot go on from either.
 */
export function nextStep<State>(graph: CompiledGraph<State>, folder: RunRecordFolder<State>): NextStep {
  if (folder.revision === 0) return START;
  const cancel = folder.cancelled;
  if (cancel !== null) return cancelledStep(folder, cancel.reason, cancel.revision);
  const open = openWork(folder);
  if (open !== null) return open;
  const commands = graph.decide(folder.state);
  const first = commands[0];
  if (first === undefined) throw new GraphExecutionError('EMPTY_DECISION', 'decide returned no command and no attempt is in flight.');
  switch (first.kind) {
    case 'dispatch':
      return { kind: 'dispatch', batch: checkedBatch(folder, commands as DispatchCommand[]) };
    case 'complete':
      return { kind: 'complete', output: first.output };
    case 'fail':
      return { kind: 'fail', code: first.code, message: first.message, failures: runFailures(graph, folder) };
    case 'pause': {
      const paused = firstPaused(graph, folder);
      return { kind: 'pause', reason: first.reason, position: paused?.position ?? null, request: paused?.pause?.request ?? null };
    }
  }
}

/** Whether `step` ends or halts the run (`complete`, `fail`, `pause`, `cancelled`). */
export function isEndStep(step: NextStep): step is EndStep {
  return step.kind === 'complete' || step.kind === 'fail' || step.kind === 'pause' || step.kind === 'cancelled';
}

const START: NextStep = Object.freeze({ kind: 'start' });

/** After a cancel: the started attempts still without an outcome, or the cancel itself once there are none. */
function cancelledStep<State>(folder: RunRecordFolder<State>, reason: string, revision: number): NextStep {
  const positions = folder.startedPositions();
  if (positions.length === 0) return { kind: 'cancelled', reason, revision };
  const inFlight = positions.map((position) => folder.openAttempt(position) as InFlightAttempt);
  return { kind: 'attempts', positions, ready: [], inFlight };
}

/** The unfinished attempts that are not paused, or null when there are none. */
function openWork<State>(folder: RunRecordFolder<State>): NextStep | null {
  const positions = folder.unfinishedPositions();
  if (positions.length === 0) return null;
  const ready: ReadyAttempt[] = [];
  const inFlight: InFlightAttempt[] = [];
  for (const position of positions) {
    const attempt = folder.openAttempt(position)!;
    if (attempt.status === 'started') inFlight.push(attempt as InFlightAttempt);
    else ready.push(attempt as ReadyAttempt);
  }
  return { kind: 'attempts', positions, ready, inFlight };
}

function checkedBatch<State>(folder: RunRecordFolder<State>, batch: readonly DispatchCommand[]): readonly DispatchCommand[] {
  for (const command of batch) {
    if (folder.hasDispatched(command.position)) {
      throw new GraphExecutionError('DUPLICATE_POSITION', `decide dispatched position ${command.position} a second time.`, { details: { position: command.position } });
    }
  }
  return batch;
}

/** Node ids in declaration order. */
function nodeOrder<State>(graph: CompiledGraph<State>): readonly string[] {
  return graph.definition.value.nodes.map((node) => node.id);
}

/** The first paused attempt in node declaration order, or undefined. */
function firstPaused<State>(graph: CompiledGraph<State>, folder: RunRecordFolder<State>): OpenAttempt | undefined {
  const paused = folder.openAttempts().filter((attempt) => attempt.status === 'paused');
  return nodeOrder(graph)
    .map((nodeId) => paused.find((attempt) => attempt.nodeId === nodeId))
    .find((attempt) => attempt !== undefined);
}

/** Every recorded failure, in node declaration order (record order within a node). */
function runFailures<State>(graph: CompiledGraph<State>, folder: RunRecordFolder<State>): RunFailure[] {
  const failures = folder.failures;
  return nodeOrder(graph).flatMap((nodeId) =>
    failures.filter((failure) => failure.nodeId === nodeId).map(({ position, code, message }) => ({ memberId: nodeId, position, code, message })),
  );
}
