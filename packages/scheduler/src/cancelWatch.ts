import { isRoundtableError } from '@roundtable/core';
import type { RunStorage } from '@roundtable/storage';

/** At most one fold a hint causes per this long: a cancel is heard within it, and a run's own appends (each a hint) cost nothing more. */
const CHECK_INTERVAL_MS = 50;

/**
 * How a session hears of a cancel while its attempts run (SPEC 20): the storage's change hints
 * for the run (where it gives them) and the executor's own appends that met someone else's
 * (`poke`) make it fold what is new; once the fold holds a cancel, the session's attempt signal
 * is aborted. That one signal follows the run's own signal too, so an attempt tells the two
 * apart by `cancelled`. Nothing is watched until the first attempt starts.
 */
export class CancelWatch {
  readonly #storage: RunStorage;
  readonly #runId: string;
  readonly #foldNew: () => Promise<void>;
  readonly #isCancelled: () => boolean;
  readonly #runSignal: AbortSignal;
  readonly #attempts = new AbortController();
  readonly #stopped = new AbortController();
  readonly #onRunAbort = () => this.#attempts.abort(this.#runSignal.reason);
  #cancelled = false;
  #watching = false;
  #checking = false;
  #lastCheck = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  constructor(storage: RunStorage, runId: string, runSignal: AbortSignal, foldNew: () => Promise<void>, isCancelled: () => boolean) {
    this.#storage = storage;
    this.#runId = runId;
    this.#runSignal = runSignal;
    this.#foldNew = foldNew;
    this.#isCancelled = isCancelled;
  }

  /** Whether a cancel was seen (and the attempts' signal aborted for it). */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** The signal every attempt of the session gets: aborted by the run's signal or by a cancel. Starts the watch. */
  attemptSignal(): AbortSignal {
    if (!this.#watching) this.#watch();
    return this.#attempts.signal;
  }

  /** Someone else appended (an append of ours met a conflict): check for a cancel now. */
  poke(): void {
    if (this.#watching) void this.#check();
  }

  stop(): void {
    this.#stopped.abort();
    this.#runSignal.removeEventListener('abort', this.#onRunAbort);
    clearTimeout(this.#timer);
  }

  #watch(): void {
    this.#watching = true;
    if (this.#runSignal.aborted) this.#onRunAbort();
    else this.#runSignal.addEventListener('abort', this.#onRunAbort, { once: true });
    const changes = this.#storage.changes?.(this.#runId, this.#stopped.signal);
    if (changes === undefined) return;
    void (async () => {
      try {
        for await (const _ of changes) this.#hinted();
      } catch {
        // A watch that fails (a closed storage) leaves the next append to find the cancel.
      }
    })();
  }

  /** A hint: check now, or once the interval since the last check has passed. */
  #hinted(): void {
    if (this.#timer !== undefined || this.#stopped.signal.aborted) return;
    const wait = this.#lastCheck + CHECK_INTERVAL_MS - performance.now();
    if (wait <= 0) void this.#check();
    else {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#check();
      }, wait);
    }
  }

  async #check(): Promise<void> {
    if (this.#checking || this.#stopped.signal.aborted) return;
    this.#checking = true;
    this.#lastCheck = performance.now();
    try {
      if (!this.#isCancelled()) await this.#foldNew();
    } catch (error) {
      // A fold that fails here fails again, loudly, where the executor folds next.
      if (!isRoundtableError(error)) throw error;
    } finally {
      this.#checking = false;
    }
    if (this.#isCancelled() && !this.#cancelled && !this.#stopped.signal.aborted) {
      this.#cancelled = true;
      this.#attempts.abort(new Error('The run was cancelled.'));
    }
  }
}
