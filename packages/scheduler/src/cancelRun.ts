import { GraphEventTypes, GraphExecutionError, cancelReasonProblem, foldStream, openStoredRun, runView, teamGraphType } from '@roundtable/graph';
import type { GraphType, RunRecordFolder } from '@roundtable/graph';
import { assertStreamId, checkedNewEvent, isStorageError } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import { randomEventId } from './randomEventId.js';
import { runEnded, runEnding } from './runEnded.js';

export interface CancelRunOptions {
  readonly storage: RunStorage;
  readonly runId: string;
  /** Why, for the record: a non-empty string of at most 1,024 characters. */
  readonly reason: string;
  /** The graph types to fold the stored run with (default: `[teamGraphType]`). */
  readonly types?: readonly GraphType<unknown>[];
  /** Timestamp of the written event (default: the system clock). */
  readonly clock?: () => Date | number;
  /** Id of the written event (default: a random version 7 UUID). */
  readonly newId?: () => string;
}

/**
 * Cancels a stored run, with no member code (SPEC 20): appends `graph:run-cancelled` at the
 * revision the fold reached; on a conflict it folds what is new and checks again. A run that
 * has ended (complete, failed, cancelled) is RUN_ENDED and nothing is written. After the
 * cancel the fold takes only the outcomes of attempts already started, and executors report
 * `cancelled` once none is in flight. Returns the revision written.
 */
export async function cancelRun(options: CancelRunOptions): Promise<{ readonly revision: number }> {
  const { runId, reason } = options;
  const storage = runView(options.storage);
  assertStreamId(runId);
  const problem = cancelReasonProblem(reason);
  if (problem !== null) throw new GraphExecutionError('PROTOCOL', `cancelRun: ${problem}`, { details: { runId } });
  const opened = await openStoredRun(storage, runId, { types: options.types ?? [teamGraphType as unknown as GraphType<unknown>] });
  const graph = opened.graph;
  let folder: RunRecordFolder<unknown> = opened.folder;
  const newId = options.newId ?? randomEventId;
  const clock = options.clock ?? (() => Date.now());
  for (;;) {
    const ending = runEnding(folder, (state) => graph.decide(state));
    if (ending !== null) throw runEnded(runId, folder, 'cancel', ending);
    const time = clock();
    const event = checkedNewEvent(newId(), GraphEventTypes.RUN_CANCELLED, 1, new Date(typeof time === 'number' ? time : time.getTime()).toISOString(), runId, null, { reason });
    try {
      return { revision: await storage.append(runId, folder.revision, [event]) };
    } catch (error) {
      if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
      folder = await foldStream(storage, runId, { folder });
    }
  }
}
