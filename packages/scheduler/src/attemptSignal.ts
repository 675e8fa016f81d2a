/** Why an attempt stopped before its member settled. */
export type AttemptStop = 'aborted' | 'timeout';

/**
 * The abort side of one attempt: its `ctx.signal`, its timeout and what the executor waits on
 * while an asynchronous member runs. Nothing is made until something needs it: the
 * AbortController only when the member (or its `decideAction`) reads `ctx.signal`, the timer
 * only when the binding sets `timeoutMs`, the listener on the run's signal only while an
 * asynchronous member is awaited or a member holds the attempt's signal. A synchronous member
 * that never reads its signal costs none of them.
 *
 * The attempt's signal is aborted with the run's reason when the run is aborted during the
 * attempt, and with a "Timed out" error when the timeout passes; after `end` it follows the run
 * no longer (a member read that late sees what happened while the attempt ran).
 */
export class AttemptAbort {
  readonly #runSignal: AbortSignal;
  readonly #timeoutMs: number | undefined;
  #controller: AbortController | null = null;
  #timer: NodeJS.Timeout | undefined;
  /** The reason the attempt's signal was (or must be, when made) aborted with; undefined: not aborted. */
  #abortReason: unknown = undefined;
  #aborted = false;
  #ended = false;
  /** Called once when the attempt stops before its member settled (a member is being awaited). */
  #onStop: ((stop: AttemptStop) => void) | null = null;
  /** The listener on the run's signal while one is needed. */
  #fromRun: (() => void) | null = null;

  constructor(runSignal: AbortSignal, timeoutMs: number | undefined) {
    this.#runSignal = runSignal;
    this.#timeoutMs = timeoutMs;
  }

  /** `ctx.signal`: made on first read. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#aborted) controller.abort(this.#abortReason);
      else if (!this.#ended && this.#runSignal.aborted) this.#abort(this.#runSignal.reason);
      else if (!this.#ended) this.#listen();
    }
    return this.#controller.signal;
  }

  /** Starts the timeout, if the binding has one; call just before the member runs. */
  startTimer(): void {
    if (this.#timeoutMs === undefined || this.#ended) return;
    const timeoutMs = this.#timeoutMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#ended && !this.#aborted) this.#abort(new Error(`Timed out after ${timeoutMs} ms.`));
    }, timeoutMs);
  }

  /**
   * A promise of why the attempt stopped while its member is awaited: the run was aborted, or
   * the timeout passed. It never settles when neither happens before `end`.
   */
  stopped(): Promise<AttemptStop> {
    return new Promise<AttemptStop>((resolve) => {
      if (this.#aborted || this.#runSignal.aborted) {
        resolve(this.#runSignal.aborted ? 'aborted' : 'timeout');
        return;
      }
      this.#onStop = resolve;
      this.#listen();
    });
  }

  /** The attempt is over: no timer, no listener; the attempt's signal keeps its state. */
  end(): void {
    this.#ended = true;
    this.#onStop = null;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#fromRun !== null) this.#runSignal.removeEventListener('abort', this.#fromRun);
    this.#fromRun = null;
    // A run aborted while a synchronous member ran (by the member itself) is not heard by any
    // listener: the attempt's signal, if the member reads it later, is aborted all the same.
    if (!this.#aborted && this.#runSignal.aborted) {
      this.#aborted = true;
      this.#abortReason = this.#runSignal.reason;
    }
  }

  #listen(): void {
    if (this.#fromRun !== null) return;
    const fromRun = (): void => {
      this.#fromRun = null;
      this.#abort(this.#runSignal.reason);
    };
    this.#fromRun = fromRun;
    this.#runSignal.addEventListener('abort', fromRun, { once: true });
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
    const onStop = this.#onStop;
    this.#onStop = null;
    onStop?.(this.#runSignal.aborted ? 'aborted' : 'timeout');
  }
}
