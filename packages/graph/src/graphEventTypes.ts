import { STREAM_ID_PATTERN, isIdentifier } from '@roundtable/core';
import { GRAPH_EVENT_PAYLOAD_FIELDS, MAX_CANCEL_REASON_LENGTH } from './graphEvent.js';
import { hasOwn, isPositiveSafeInteger, isRecord } from './json.js';

/** The event kinds the executor writes; all are version 1. */
export const GraphEventTypes = {
  RUN_STARTED: 'graph:run-started',
  NODE_DISPATCHED: 'graph:node-dispatched',
  NODE_ATTEMPT_STARTED: 'graph:node-attempt-started',
  NODE_COMPLETED: 'graph:node-completed',
  NODE_FAILED: 'graph:node-failed',
  NODE_PAUSED: 'graph:node-paused',
  NODE_RESUMED: 'graph:node-resumed',
  NODE_RETRIED: 'graph:node-retried',
  RUN_CANCELLED: 'graph:run-cancelled',
  RUN_FORKED: 'graph:run-forked',
} as const;

export const GRAPH_EVENT_VERSION = 1;

/** The exact payload fields of each standard event type (SPEC 4 and 11.4), read from their zod schemas. */
const PAYLOAD_FIELDS = GRAPH_EVENT_PAYLOAD_FIELDS;

/** Whether `payload`'s own keys are exactly `fields` (a loop: this runs for every folded event). */
function hasExactly(payload: Record<string, unknown>, fields: readonly string[]): boolean {
  if (Object.keys(payload).length !== fields.length) return false;
  for (let index = 0; index < fields.length; index++) if (!hasOwn(payload, fields[index]!)) return false;
  return true;
}

/**
 * What is wrong with the shape of a standard `graph:` event, or null: version 1, exactly its
 * payload fields, and each field of the right type. Events outside `graph:` pass. The fold
 * applies this to every event it reads and the executor to every event it is about to write,
 * so the executor can never write an event that a later fold refuses for its shape. (Whether
 * the event fits the record so far, such as a declared node or a matching attempt, is the
 * fold's business; that the payload is JSON with well-formed strings is the storage's.)
 */
export function graphEventProblem(event: { readonly type: string; readonly version: number; readonly payload: unknown }): string | null {
  if (!event.type.startsWith('graph:')) return null;
  const fields = PAYLOAD_FIELDS[event.type];
  if (fields === undefined) return 'unknown graph event type.';
  if (event.version !== GRAPH_EVENT_VERSION) return `version ${String(event.version)} is not supported (only 1).`;
  const payload = event.payload;
  if (!isRecord(payload)) return 'payload must be an object.';
  if (!hasExactly(payload, fields)) return `payload must have exactly the fields ${fields.join(', ')}.`;
  if (event.type === GraphEventTypes.RUN_STARTED) return null;
  if (event.type === GraphEventTypes.RUN_CANCELLED) return cancelReasonProblem(payload.reason);
  if (event.type === GraphEventTypes.RUN_FORKED) return runForkedProblem(payload);
  if (typeof payload.nodeId !== 'string') return 'nodeId must be a string.';
  if (typeof payload.position !== 'string' || !isIdentifier(payload.position)) return 'position must be an identifier.';
  switch (event.type) {
    case GraphEventTypes.NODE_ATTEMPT_STARTED:
      if (!isPositiveSafeInteger(payload.attempt)) return 'attempt must be a positive safe integer.';
      return typeof payload.retrySafe === 'boolean' ? null : 'retrySafe must be a boolean.';
    case GraphEventTypes.NODE_FAILED:
      return typeof payload.code === 'string' && typeof payload.message === 'string' ? null : 'code and message must be strings.';
    case GraphEventTypes.NODE_RETRIED:
      if (!isPositiveSafeInteger(payload.attempt)) return 'attempt must be a positive safe integer.';
      return typeof payload.code === 'string' && typeof payload.message === 'string' ? null : 'code and message must be strings.';
    case GraphEventTypes.NODE_PAUSED:
      return typeof payload.reason === 'string' ? null : 'reason must be a string.';
    default:
      return null;
  }
}

/** What is wrong with a cancel's reason (SPEC 20: a non-empty string of at most 1,024 characters), or null. */
export function cancelReasonProblem(reason: unknown): string | null {
  if (typeof reason !== 'string' || reason.length === 0) return 'reason must be a non-empty string.';
  return reason.length > MAX_CANCEL_REASON_LENGTH ? `reason must be at most ${MAX_CANCEL_REASON_LENGTH} characters (it has ${reason.length}).` : null;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** What is wrong with a `graph:run-forked` payload's fields (SPEC 21), or null; the definition's shape is the fold's check. */
function runForkedProblem(payload: Record<string, unknown>): string | null {
  if (typeof payload.from !== 'string' || !STREAM_ID_PATTERN.test(payload.from)) return 'from must be a run id.';
  if (!isPositiveSafeInteger(payload.at)) return 'at must be a positive safe integer.';
  if (typeof payload.prefixDigest !== 'string' || !DIGEST.test(payload.prefixDigest)) return 'prefixDigest must be sha256: and 64 lowercase hex digits.';
  return isRecord(payload.definition) ? null : 'definition must be an object.';
}
