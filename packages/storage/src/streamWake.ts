import { StorageError } from './errors.js';
import type { RunStorage } from './storage.js';

/** How often `followStream` and `waitForAppend` poll `head` when no change hint arrives. */
export const DEFAULT_FOLLOW_POLL_INTERVAL_MS = 250;

/** The poll interval given, or the default; anything but a positive finite number is INVALID_STORAGE_OPTIONS. */
export function checkedPollInterval(value: number | undefined): number {
  const pollIntervalMs = value ?? DEFAULT_FOLLOW_POLL_INTERVAL_MS;
  if (typeof pollIntervalMs !== 'number' || !Number.isFinite(pollIntervalMs) || pollIntervalMs <= 0) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', `pollIntervalMs must be a positive number, got ${String(pollIntervalMs)}.`);
  }
  return pollIntervalMs;
}

/** Resolves after `ms`, or at once when `wake` fires or `signal` aborts; never rejects. */
export function waitForWake(ms: number, signal: AbortSignal, register: (wake: () => void) => void): Promise<void> {
  // An abort that landed during the read before this wait has already fired its event.
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    register(done);
  });
}

/** Consumes the adapter's change hints until `signal` aborts; a failing hint source just stops (polling goes on). */
export async function watchHints(storage: RunStorage, streamId: string, signal: AbortSignal, hint: () => void): Promise<void> {
  if (typeof storage.changes !== 'function') return;
  try {
    for await (const _ of storage.changes(streamId, signal)) {
      if (signal.aborted) return;
      hint();
    }
  } catch {
    // Hints are an optimisation: correctness comes from read and head, which keep polling.
  }
}
