import { StorageError } from './errors.js';
import type { StoredEvent } from './events.js';
import type { RunStorage } from './storage.js';
import { assertRevision, assertStreamId } from './validation.js';
import { checkedPollInterval, waitForWake, watchHints } from './streamWake.js';

export interface FollowStreamOptions {
  /** Follow events with a revision greater than this (default 0: the whole stream). */
  readonly after?: number;
  /** Ends the follow: iteration returns (no error) once it aborts. Without it, stop by leaving the loop. */
  readonly signal?: AbortSignal;
  /** How often `head` is polled when no change hint arrives (default 250 ms). */
  readonly pollIntervalMs?: number;
}

export { DEFAULT_FOLLOW_POLL_INTERVAL_MS } from './streamWake.js';

/**
 * Every event of `streamId` with `revision > after`, in order, each exactly once, including
 * events appended later by any instance or process over the same backing data. It reads on
 * each change hint of the adapter (`storage.changes`, when it has one) and otherwise polls
 * `head` every `pollIntervalMs`. Hints never carry data: what is yielded always comes from
 * `read`. Iteration ends without an error when `signal` aborts; storage errors (a damaged
 * record, a closed instance) reject it.
 */
export async function* followStream(storage: RunStorage, streamId: string, options: FollowStreamOptions = {}): AsyncGenerator<StoredEvent> {
  assertStreamId(streamId);
  const after = options.after ?? 0;
  assertRevision(after, 'after');
  const pollIntervalMs = checkedPollInterval(options.pollIntervalMs);
  const stop = new AbortController();
  const outer = options.signal;
  const onAbort = () => stop.abort();
  if (outer?.aborted) return;
  outer?.addEventListener('abort', onAbort, { once: true });

  let hinted = false;
  let wake: (() => void) | null = null;
  const hint = () => {
    hinted = true;
    wake?.();
  };
  const hints = watchHints(storage, streamId, stop.signal, hint);
  let last = after;
  try {
    // The first pass reads at once; later passes read on a hint, or when a poll of head moved.
    let mustRead = true;
    while (!stop.signal.aborted) {
      if (mustRead) {
        hinted = false;
        for await (const event of storage.read(streamId, { after: last })) {
          if (event.revision !== last + 1) {
            throw new StorageError('CORRUPT_EVENT_STREAM', `Stream ${streamId}: a read after revision ${last} returned revision ${String(event.revision)}.`, {
              details: { streamId, expected: last + 1, got: event.revision },
            });
          }
          last = event.revision;
          yield event;
          if (stop.signal.aborted) return;
        }
      }
      if (!hinted) await waitForWake(pollIntervalMs, stop.signal, (resolve) => (wake = resolve));
      wake = null;
      if (stop.signal.aborted) return;
      mustRead = hinted || (await storage.head(streamId)) > last;
    }
  } finally {
    outer?.removeEventListener('abort', onAbort);
    stop.abort();
    // Not awaited: an adapter's hint source ends on the abort, and a slow one must not hold up the caller.
    void hints;
  }
}
