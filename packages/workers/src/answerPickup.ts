import { GraphEventTypes, runView } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';
import type { PostgresStorage } from '@roundtable/storage-postgres';

/** How many of a changed run's newest events are looked at for an answer. */
export const RECENT_EVENTS = 16;

export interface AnswerPickupOptions {
  readonly storage: PostgresStorage;
  /** The queue of a run's team by its definition digest, or null for a team this pool does not run. */
  readonly queueOf: (digest: string) => string | null;
  /** Queues the job of the answer to `position`'s pause at `pausedAt` (the id `resumeRun` gives it, so it exists once). */
  readonly send: (queue: string, runId: string, position: string, pausedAt: number) => Promise<void>;
  /** Called once a run's answers are queued: claim them now rather than at the queue's wake. */
  readonly queued?: () => void;
  readonly onError: (error: unknown) => void;
}

export interface AnswerPickup {
  stop(): Promise<void>;
}

/**
 * Answers written without `resumeRun` (`roundtable answer`, the viewer, `answerPause`: SPEC 20)
 * get their job from any pool: it hears every commit of its namespace (`changedStreams`), reads
 * what is new in the run since it last looked, and when that holds a `graph:node-resumed` queues
 * each answered pause that no attempt has started since, as the job `resumeRun` would have
 * queued for it. When listening starts (and after a reconnect, when commits may have gone
 * unannounced) every run of the namespace is looked at so; a run it sees for the first time is
 * read from its `RECENT_EVENTS` newest events.
 */
export function startAnswerPickup(options: AnswerPickupOptions): AnswerPickup {
  const controller = new AbortController();
  const { storage, onError } = options;
  // Runs are read as runs: a fork's answer to a pause of its parent's prefix is found, in run revisions.
  const runs = runView(storage);
  const seen = new Map<string, number>();
  const done = (async () => {
    try {
      for await (const batch of storage.changedStreams(controller.signal)) {
        const runIds = batch.all ? await everyStream(storage) : batch.streamIds;
        for (const runId of runIds) {
          if (controller.signal.aborted) return;
          await lookAt(options, runs, seen, runId).catch(onError);
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) onError(error);
    }
  })();
  return {
    async stop() {
      controller.abort();
      await done;
    },
  };
}

async function everyStream(storage: PostgresStorage): Promise<string[]> {
  const runIds: string[] = [];
  for await (const { streamId } of storage.streams()) runIds.push(streamId);
  return runIds;
}

/** How many runs' last looked-at heads a pool remembers (the least recently looked at forgotten first). */
export const REMEMBERED_RUNS = 10_000;

/**
 * Looks at what is new in a run since this pool last looked (on first sight, its
 * `RECENT_EVENTS` newest events) and queues the jobs of its unstarted answers when there is an
 * answer among it. Never skipped because the pool's own executor folded the run: a step of
 * another position may have folded an answer that only this look queues.
 */
async function lookAt(options: AnswerPickupOptions, storage: RunStorage, seen: Map<string, number>, runId: string): Promise<void> {
  // A run it knows is read on from where it left off; only a new one needs its head first.
  let from = seen.get(runId);
  if (from === undefined) {
    const head = await storage.head(runId);
    if (head === 0) return;
    from = Math.max(0, head - RECENT_EVENTS);
  }
  let head = from;
  let answered = false;
  for await (const event of storage.read(runId, { after: from })) {
    head = event.revision;
    if (event.type === GraphEventTypes.NODE_RESUMED) answered = true;
  }
  if (head === from) return;
  if (answered) {
    const { digest, answers } = await unstartedAnswers(storage, runId);
    const queue = digest === null || answers.length === 0 ? null : options.queueOf(digest);
    if (queue !== null) {
      for (const { position, pausedAt } of answers) await options.send(queue, runId, position, pausedAt);
      options.queued?.();
    }
  }
  // Remembered once its answers are queued: a look that failed part way is taken again.
  seen.delete(runId);
  seen.set(runId, head);
  if (seen.size > REMEMBERED_RUNS) seen.delete(seen.keys().next().value!);
}

/**
 * The run's definition digest (from its `graph:run-started`), and every answered pause of the
 * run that no attempt has started since, with the revision of the pause; none once the run is
 * cancelled.
 */
async function unstartedAnswers(storage: RunStorage, runId: string): Promise<{ digest: string | null; answers: { position: string; pausedAt: number }[] }> {
  const paused = new Map<string, number>();
  const answered = new Map<string, number>();
  let digest: string | null = null;
  for await (const event of storage.read(runId)) {
    const position = (event.payload as { position?: unknown } | null)?.position;
    if (event.type === GraphEventTypes.RUN_STARTED) {
      const stored = (event.payload as { definition?: { digest?: unknown } } | null)?.definition?.digest;
      digest = typeof stored === 'string' ? stored : null;
    }
    if (event.type === GraphEventTypes.RUN_CANCELLED) return { digest, answers: [] };
    if (typeof position !== 'string') continue;
    if (event.type === GraphEventTypes.NODE_PAUSED) paused.set(position, event.revision);
    else if (event.type === GraphEventTypes.NODE_RESUMED) {
      // An answer to the pause; a resume of a started attempt (crash recovery) answers none.
      const pausedAt = paused.get(position);
      if (pausedAt !== undefined) answered.set(position, pausedAt);
      paused.delete(position);
    } else if (event.type === GraphEventTypes.NODE_ATTEMPT_STARTED) {
      answered.delete(position);
      paused.delete(position);
    }
  }
  return { digest, answers: [...answered].map(([position, pausedAt]) => ({ position, pausedAt })) };
}
