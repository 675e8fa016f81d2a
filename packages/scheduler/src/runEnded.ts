import { GraphExecutionError } from '@roundtable/graph';
import type { RunRecordFolder } from '@roundtable/graph';

/**
 * How a folded run has ended, or null while it has not: cancelled (SPEC 20), or `decide`'s
 * complete or fail with no attempt open. A paused run has not ended: it waits for an answer.
 */
export function runEnding(folder: RunRecordFolder<unknown>, decide: (state: unknown) => readonly { readonly kind: string }[]): 'cancelled' | 'complete' | 'fail' | null {
  if (folder.cancelled !== null) return 'cancelled';
  if (folder.openAttempts().length > 0) return null;
  const first = decide(folder.state)[0];
  return first !== undefined && (first.kind === 'complete' || first.kind === 'fail') ? first.kind : null;
}

/** RUN_ENDED for `action` on a run that has ended (cancelled, when the folder says so, else `ending`). */
export function runEnded(runId: string, folder: RunRecordFolder<unknown>, action: string, ending: 'complete' | 'fail' | 'cancelled' = 'cancelled'): GraphExecutionError {
  const cancel = folder.cancelled;
  const how = cancel !== null ? `was cancelled at revision ${cancel.revision} (${JSON.stringify(cancel.reason)})` : ending === 'complete' ? 'is complete' : 'has failed';
  return new GraphExecutionError('RUN_ENDED', `Run ${runId} ${how}: it takes no ${action}.`, {
    details: { runId, ending: cancel !== null ? 'cancelled' : ending, revision: folder.revision },
  });
}
