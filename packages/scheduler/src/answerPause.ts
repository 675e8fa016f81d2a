import type { Json } from '@roundtable/core';
import { GraphEventTypes, GraphExecutionError, foldStream, openStoredRun, runView, teamGraphType } from '@roundtable/graph';
import type { GraphType, OpenAttempt, RecordedEvent, RunRecordFolder } from '@roundtable/graph';
import { assertStreamId, checkedNewEvent, isStorageError } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import { randomEventId } from './randomEventId.js';
import { recordedResumeValue } from './resumeValue.js';
import { runEnded } from './runEnded.js';

export interface AnswerPauseOptions {
  readonly storage: RunStorage;
  readonly runId: string;
  /** The paused position to answer. */
  readonly position: string;
  /** Recorded in `graph:node-resumed` and given to the re-run attempt as `ctx.resume` (default null). */
  readonly value?: Json;
  /**
   * The revision of the `graph:node-paused` the answer was given to (the one a person saw): when
   * the position's open pause is another one, or none, the answer is STALE_ANSWER.
   */
  readonly pausedAt?: number;
  /** The graph types to fold the stored run with (default: `[teamGraphType]`). */
  readonly types?: readonly GraphType<unknown>[];
  /** Timestamp of the written event (default: the system clock). */
  readonly clock?: () => Date | number;
  /** Id of the written event (default: a random version 7 UUID). */
  readonly newId?: () => string;
}

/** Where a position's pauses stand in the record: its latest pause's revision and whether an answer followed it. */
export interface PauseHistory {
  pausedAt: number | null;
  answered: boolean;
}

/**
 * Answers a paused position of a stored run, with no member code (SPEC 20): appends
 * `graph:node-resumed` at the revision the fold reached, and only while the position is still
 * paused at that revision. When another actor appended first, it folds what is new and checks
 * again, so of two racing answers exactly one is written; the other writes nothing and throws
 * STALE_ANSWER. A position whose latest attempt is not paused and was never answered (never
 * paused, dispatched, running) is PROTOCOL. Returns the revision written and that of the pause it answered.
 */
export async function answerPause(options: AnswerPauseOptions): Promise<{ readonly revision: number; readonly pausedAt: number }> {
  const { runId, position } = options;
  const storage = runView(options.storage);
  assertStreamId(runId);
  if (typeof position !== 'string' || position.length === 0) throw new GraphExecutionError('PROTOCOL', 'answerPause: position must be a non-empty string.');
  if (options.pausedAt !== undefined && !(Number.isSafeInteger(options.pausedAt) && options.pausedAt >= 1)) {
    throw new GraphExecutionError('PROTOCOL', `answerPause: pausedAt must be a revision (a positive integer), not ${JSON.stringify(options.pausedAt)}.`);
  }
  // The recorded (canonical) form; a value that is not JSON is INVALID_JSON_VALUE, before any read.
  const value = recordedResumeValue(options.value ?? null);
  const history: PauseHistory = { pausedAt: null, answered: false };
  const watch = { onEvent: (event: RecordedEvent) => notePause(history, event, position) };
  const types = options.types ?? [teamGraphType as unknown as GraphType<unknown>];
  let folder: RunRecordFolder<unknown> = (await openStoredRun(storage, runId, { types, ...watch })).folder;
  const newId = options.newId ?? randomEventId;
  const clock = options.clock ?? (() => Date.now());
  for (;;) {
    if (folder.cancelled !== null) throw runEnded(runId, folder, 'an answer');
    const problem = answerProblem(folder.openAttempt(position), folder.hasDispatched(position), history, runId, position, options.pausedAt);
    if (problem !== null) throw problem;
    const open = folder.openAttempt(position)!;
    const time = clock();
    const event = checkedNewEvent(newId(), GraphEventTypes.NODE_RESUMED, 1, new Date(typeof time === 'number' ? time : time.getTime()).toISOString(), runId, open.dispatchEventId, {
      nodeId: open.nodeId,
      position,
      value,
    });
    try {
      return { revision: await storage.append(runId, folder.revision, [event]), pausedAt: history.pausedAt! };
    } catch (error) {
      if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
      folder = await foldStream(storage, runId, { folder, ...watch });
    }
  }
}

/** Where a position's pauses stand, from the events of a whole record read in order. */
export function notePause(history: PauseHistory, event: RecordedEvent, position: string): void {
  if (event.type === GraphEventTypes.NODE_PAUSED && (event.payload as { position?: unknown }).position === position) {
    history.pausedAt = event.revision;
    history.answered = false;
  } else if (event.type === GraphEventTypes.NODE_RESUMED && history.pausedAt !== null && (event.payload as { position?: unknown }).position === position) {
    history.answered = true;
  }
}

/** Reads a run's whole record for where `position`'s pauses stand (the slow path of an answer that finds no open pause). */
export async function readPauseHistory(storage: RunStorage, runId: string, position: string): Promise<PauseHistory> {
  const history: PauseHistory = { pausedAt: null, answered: false };
  for await (const event of storage.read(runId)) notePause(history, event, position);
  return history;
}

/**
 * Why an answer to `position` cannot be written, or null when its attempt is paused (at
 * `pausedAt`, when given): STALE_ANSWER when the pause was answered already or is another one,
 * PROTOCOL when the position has no pause to answer.
 */
export function answerProblem(
  open: OpenAttempt | undefined,
  dispatched: boolean,
  history: PauseHistory,
  runId: string,
  position: string,
  pausedAt: number | undefined,
): GraphExecutionError | null {
  const details = { runId, position, pausedAt: history.pausedAt, ...(pausedAt === undefined ? {} : { answeredPause: pausedAt }) };
  if (open?.status === 'paused') {
    if (pausedAt === undefined || pausedAt === history.pausedAt) return null;
    return new GraphExecutionError('STALE_ANSWER', `Position ${position} of run ${runId} is paused at revision ${history.pausedAt}, not at ${pausedAt}: read the new request and answer that one.`, {
      details,
    });
  }
  if (history.answered || (pausedAt !== undefined && history.pausedAt !== null)) {
    return new GraphExecutionError('STALE_ANSWER', `The pause at revision ${history.pausedAt} of position ${position} in run ${runId} was already answered.`, {
      details: { ...details, answered: history.answered },
    });
  }
  const state = open === undefined ? (dispatched ? 'finished' : 'never dispatched') : open.status === 'started' ? 'running' : open.status;
  return new GraphExecutionError('PROTOCOL', `Position ${position} of run ${runId} is not paused (it is ${state}).`, { details });
}
