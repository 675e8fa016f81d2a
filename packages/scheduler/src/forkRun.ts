import { digest } from '@roundtable/core';
import {
  GraphEventTypes,
  GraphExecutionError,
  MAX_FORK_DEPTH,
  RunRecordFolder,
  compileStoredDefinition,
  forkDepth,
  forkOf,
  isGraphExecutionError,
  readRunDefinition,
  runForkedPayload,
  runView,
  teamGraphType,
} from '@roundtable/graph';
import type { GraphType, RunEvent } from '@roundtable/graph';
import { StorageError, assertStreamId, checkedNewEvent, isStorageError } from '@roundtable/storage';
import type { RunStorage, StoredEvent } from '@roundtable/storage';
import { randomEventId } from './randomEventId.js';

export interface ForkRunOptions {
  readonly storage: RunStorage;
  /** The run to fork (itself a fork or not). */
  readonly from: string;
  /** The run revision of `from` the fork goes on from: 1 ≤ `at` ≤ its head, not inside a dispatch batch. */
  readonly at: number;
  /** The new run's id: a stream with no events. */
  readonly to: string;
  /** The graph types to fold the parent with (default: `[teamGraphType]`). */
  readonly types?: readonly GraphType<unknown>[];
  /** Timestamp of the written event (default: the system clock). */
  readonly clock?: () => Date | number;
  /** Id of the written event (default: a random version 7 UUID). */
  readonly newId?: () => string;
}

/**
 * Forks the run `from` at its run revision `at` into the new run `to` (SPEC 21), in one append
 * whatever the parent's length: `graph:run-forked { from, at, prefixDigest, definition }` at
 * `to`'s stream revision 1, which is its run revision `at + 1`. Nothing of the prefix is copied
 * or run again; every reader (executor, rooms, CLI, viewer, workers) folds `to` as the parent's
 * events 1..`at` and then its own. An attempt started at `at` without an outcome is ready work
 * in the fork; a pause open at `at` can be answered there differently.
 *
 * Refused, writing nothing: `at` out of range or inside a dispatch batch (INVALID_FORK_POINT),
 * `to` not empty (RUN_EXISTS), `from` already 16 forks deep (FORK_TOO_DEEP), `from` empty
 * (RUN_NOT_FOUND). The parent is read up to `at` once, to check the fork point and digest it.
 */
export async function forkRun(options: ForkRunOptions): Promise<{ readonly runId: string; readonly revision: number }> {
  const { from, at, to } = options;
  assertStreamId(from);
  assertStreamId(to);
  const storage = runView(options.storage);
  if (!Number.isSafeInteger(at) || at < 1) throw invalidForkPoint(from, at, `at must be a revision (a positive integer), not ${JSON.stringify(at)}.`);
  const head = await storage.head(from);
  if (head === 0) throw new GraphExecutionError('RUN_NOT_FOUND', `Run ${from} has no events in this store.`, { details: { runId: from } });
  if (at > head) throw invalidForkPoint(from, at, `run ${from} has ${head} revisions.`);
  if ((await storage.head(to)) !== 0) throw runExists(to);
  const depth = (await forkDepth(options.storage, from))!;
  if (depth + 1 > MAX_FORK_DEPTH) {
    throw new GraphExecutionError('FORK_TOO_DEEP', `Run ${from} is a fork ${depth} levels deep: a fork of it would pass the limit of ${MAX_FORK_DEPTH}.`, {
      details: { runId: from, depth, max: MAX_FORK_DEPTH },
    });
  }

  const prefix = await foldPrefix(storage, from, at, options.types ?? [teamGraphType as unknown as GraphType<unknown>]);
  const time = (options.clock ?? (() => Date.now()))();
  const payload = runForkedPayload({ from, at, prefixDigest: prefix.digest, definition: prefix.definition });
  const event = checkedNewEvent((options.newId ?? randomEventId)(), GraphEventTypes.RUN_FORKED, 1, new Date(typeof time === 'number' ? time : time.getTime()).toISOString(), to, null, payload);
  try {
    await options.storage.append(to, 0, [event]);
  } catch (error) {
    if (isStorageError(error, 'REVISION_CONFLICT')) throw runExists(to);
    throw error;
  }
  return { runId: to, revision: at + 1 };
}

/**
 * The parent's events 1..`at` as stored, folded with its stored definition to check the fork
 * point: the definition in force there and the digest of the events (SPEC 21's `prefixDigest`).
 */
async function foldPrefix(storage: RunStorage, runId: string, at: number, types: readonly GraphType<unknown>[]) {
  const stored = (await readRunDefinition(storage, runId))!;
  const folder = new RunRecordFolder(compileStoredDefinition(stored, types, runId));
  const events: StoredEvent[] = [];
  for await (const event of storage.read(runId)) {
    folder.apply(event);
    events.push(asStored(event));
    if (event.revision === at) break;
  }
  try {
    folder.endOfRead();
  } catch (error) {
    if (isGraphExecutionError(error, 'INVALID_EVENT')) throw invalidForkPoint(runId, at, `revision ${at} is inside a dispatch batch (a batch is one append).`);
    throw error;
  }
  return { definition: folder.definition!, digest: prefixDigest(events) };
}

/**
 * Recomputes the `prefixDigest` of run `runId` if it is a fork, and of each fork in its lineage
 * (SPEC 21: what `roundtable verify` checks). Resolves to the forks checked, the run's own first
 * (empty for a run that is not a fork); a parent changed under a fork (an event edited, removed
 * or added up to the fork point) is CORRUPT_EVENT_STREAM naming the fork and the parent, with the
 * digests in `details`. Reads the prefix of each fork in the lineage.
 */
export async function verifyForkPrefix(options: { readonly storage: RunStorage; readonly runId: string }): Promise<readonly { readonly runId: string; readonly from: string; readonly at: number }[]> {
  const view = runView(options.storage);
  const checked: { runId: string; from: string; at: number }[] = [];
  for (let runId: string | null = options.runId; runId !== null && checked.length <= MAX_FORK_DEPTH; ) {
    const fork = await forkOf(options.storage, runId);
    if (fork === null) break;
    const { from, at, prefixDigest: recorded } = fork;
    const events: StoredEvent[] = [];
    for await (const event of view.read(from)) {
      if (event.revision > at) break;
      events.push(asStored(event));
    }
    const found = events.length === at ? prefixDigest(events) : null;
    if (found !== recorded) {
      const what = found === null ? `${from} now holds ${events.length} events up to the fork point ${at}` : `the digest of ${from}'s revisions 1..${at} is ${found}, not the ${recorded} the fork recorded`;
      throw new StorageError('CORRUPT_EVENT_STREAM', `Run ${runId} is a fork of ${from} at revision ${at}, but its parent changed under it: ${what}.`, {
        details: { runId, parent: from, at, prefixDigest: recorded, found, revision: at + 1 },
      });
    }
    checked.push({ runId, from, at });
    runId = from;
  }
  return checked;
}

/** A run event as its stream stores it: a fork's own events carry their stream revision. */
function asStored(event: RunEvent): StoredEvent {
  if (event.streamRevision === undefined) return event;
  const { streamRevision, ...rest } = event;
  return { ...rest, revision: streamRevision };
}

/** `digest(events)`: the SHA-256 of the canonical JSON of the prefix's events, each as stored. */
export function prefixDigest(events: readonly StoredEvent[]): string {
  return digest(events);
}

function invalidForkPoint(runId: string, at: unknown, why: string): GraphExecutionError {
  return new GraphExecutionError('INVALID_FORK_POINT', `Cannot fork ${runId} at ${JSON.stringify(at)}: ${why}`, { details: { runId, at: typeof at === 'number' ? at : null } });
}

function runExists(runId: string): GraphExecutionError {
  return new GraphExecutionError('RUN_EXISTS', `Run ${runId} already holds events: a fork needs a new run id.`, { details: { runId } });
}
