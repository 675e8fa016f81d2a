/** What `runToEnd` needs of a run's result (the shape of the scheduler's `RunResult`). */
export interface EndableResult {
  readonly kind: string;
  readonly positions?: readonly string[];
  readonly position?: string | null;
  readonly request?: unknown;
}

/** What `runToEnd` needs of an executor (the scheduler's `GraphExecutor`). */
export interface EndableExecutor<R extends EndableResult> {
  run(): Promise<R>;
  resume(position: string, options?: { value: unknown }): Promise<R>;
}

function isReconcile(request: unknown): boolean {
  return typeof request === 'object' && request !== null && (request as { kind?: unknown }).kind === 'reconcile-attempt';
}

/**
 * Runs (or recovers) a run until it ends: a run that is `waiting` (a crashed attempt's backoff,
 * a retry) is resumed at its first position, and a `reconcile-attempt` pause (an attempt of a
 * member that is not retry-safe was cut short by a crash) is resumed with `reconcileValue`.
 */
export async function runToEnd<R extends EndableResult>(executor: EndableExecutor<R>, reconcileValue: unknown = 'again'): Promise<R> {
  let result = await executor.run();
  for (;;) {
    if (result.kind === 'waiting') result = await executor.resume(result.positions?.[0] ?? '');
    else if (result.kind === 'pause' && isReconcile(result.request)) result = await executor.resume(result.position ?? '', { value: reconcileValue });
    else return result;
  }
}
