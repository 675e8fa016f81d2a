import type { Json } from '@roundtable/core';
import { GraphEventTypes, graphEventProblem } from './graphEventTypes.js';
import { invalidEvent } from './recordedEvent.js';
import type { RecordedEvent } from './recordedEvent.js';
import { parseStoredDefinition } from './runStartedEvent.js';
import type { StoredRunDefinition } from './runStartedEvent.js';

/** Forks are allowed up to this depth (a fork of a run that is not a fork has depth 1; SPEC 21). */
export const MAX_FORK_DEPTH = 16;

/** What `graph:run-forked` (a fork's stream revision 1) stores. */
export interface RunForked {
  /** The parent run. */
  readonly from: string;
  /** The parent's run revision the fork continues from: the fork's stream revision k is run revision `at + k`. */
  readonly at: number;
  /** `digest` of the parent's run events 1..`at` as stored (SPEC 21). */
  readonly prefixDigest: string;
  /** The definition in force at `at`. */
  readonly definition: StoredRunDefinition;
}

/** The payload of `graph:run-forked`. */
export function runForkedPayload(forked: RunForked): Json {
  return { from: forked.from, at: forked.at, prefixDigest: forked.prefixDigest, definition: { ...forked.definition } };
}

/** Whether `event` is a `graph:run-forked` (of any shape: `parseRunForkedEvent` checks it). */
export function isRunForkedEvent(event: { readonly type: string }): boolean {
  return event.type === GraphEventTypes.RUN_FORKED;
}

/** Reads a `graph:run-forked` event, checking its shape (INVALID_EVENT otherwise). */
export function parseRunForkedEvent(event: RecordedEvent): RunForked {
  const problem = graphEventProblem(event);
  if (problem !== null) throw invalidEvent(event, problem);
  const payload = event.payload as { from: string; at: number; prefixDigest: string; definition: Json };
  return { from: payload.from, at: payload.at, prefixDigest: payload.prefixDigest, definition: parseStoredDefinition(event, payload.definition) };
}
