/**
 * Turns a callback subscription into the hint iterable of `RunStorage.changes`: `subscribe`
 * receives `notify`, returns an unsubscribe function, and every `notify` between two reads of
 * the iterable collapses into one hint (hints carry no data, so one pending hint says it all).
 * The iterable ends when `signal` aborts or the consumer stops; either way it unsubscribes.
 */
export function changeHints(signal: AbortSignal, subscribe: (notify: () => void) => () => void): AsyncIterable<void> {
  return {
    [Symbol.asyncIterator]() {
      let pending = false;
      let wake: (() => void) | null = null;
      let done = signal.aborted;
      const notify = () => {
        pending = true;
        wake?.();
      };
      const unsubscribe = done ? () => undefined : subscribe(notify);
      const finish = () => {
        if (!done) {
          done = true;
          unsubscribe();
        }
        signal.removeEventListener('abort', onAbort);
        wake?.();
      };
      const onAbort = () => finish();
      signal.addEventListener('abort', onAbort, { once: true });
      return {
        async next(): Promise<IteratorResult<void>> {
          while (!done && !pending) await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          if (done) return { done: true, value: undefined };
          pending = false;
          return { done: false, value: undefined };
        },
        return(): Promise<IteratorResult<void>> {
          finish();
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}
