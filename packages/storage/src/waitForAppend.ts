import type { RunStorage } from './storage.js';
import { checkedPollInterval, waitForWake, watchHints } from './streamWake.js';
import { assertRevision, assertStreamId } from './validation.js';

export interface WaitForAppendOptions {
  /** Wait until the stream's head is greater than this revision. */
  readonly after: number;
  /** Ends the wait: it resolves with the head it last read once this aborts. */
  readonly signal?: AbortSignal;
  /** How often `head` is polled when no change hint arrives (default 250 ms). */
  readonly pollIntervalMs?: number;
}

/**
 * Waits until someone (any instance or process over the same backing data) has appended to
 * `streamId` after revision `after`, and resolves with the head then. It reads `head` at once,
 * then on each change hint of the adapter (`storage.changes`, when it has one) and otherwise
 * every `pollIntervalMs`. When `signal` aborts first, it resolves with the last head it read
 * (at most `after`), without an error; storage errors reject it.
 */
export async function waitForAppend(storage: RunStorage, streamId: string, options: WaitForAppendOptions): Promise<number> {
  assertStreamId(streamId);
  assertRevision(options.after, 'after');
  const pollIntervalMs = checkedPollInterval(options.pollIntervalMs);
  const stop = new AbortController();
  const outer = options.signal;
  const onAbort = () => stop.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  if (outer?.aborted) stop.abort();
  let hinted = false;
  let wake: (() => void) | null = null;
  // Listening before the first read of head, so an append between the two is not missed.
  const hints = watchHints(storage, streamId, stop.signal, () => {
    hinted = true;
    wake?.();
  });
  try {
    let head = await storage.head(streamId);
    while (head <= options.after && !stop.signal.aborted) {
      if (!hinted) await waitForWake(pollIntervalMs, stop.signal, (resolve) => (wake = resolve));
      wake = null;
      hinted = false;
      if (stop.signal.aborted) break;
      head = await storage.head(streamId);
    }
    return head;
  } finally {
    outer?.removeEventListener('abort', onAbort);
    stop.abort();
    // Not awaited: an adapter's hint source ends on the abort, and a slow one must not hold up the caller.
    void hints;
  }
}
