import { freezeJsonFields } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { GraphEventTypes, runStartedPayload } from '@roundtable/graph';
import type { CompiledGraph, DispatchCommand, OpenAttempt } from '@roundtable/graph';
import { checkedNewEvent } from '@roundtable/storage';
import type { NewEvent } from '@roundtable/storage';

/**
 * Builds the events an executor writes for one run: each new, frozen and checked once by the
 * storage's `checkedNewEvent` (its envelope is checked from the values, so neither the check an
 * outcome gets before it is written nor the storage's preflight reflects on it again; both
 * still check its payload). An id from `newId` that is not an identifier leaves the event
 * unchecked, refused by those checks as before.
 */
export class RunEvents {
  readonly #runId: string;
  readonly #clock: () => Date | number;
  readonly #newId: () => string;
  /** The last timestamp written and its clock reading: events of one millisecond share the text. */
  #lastTime = Number.NaN;
  #lastTimestamp = '';

  constructor(runId: string, clock: () => Date | number, newId: () => string) {
    this.#runId = runId;
    this.#clock = clock;
    this.#newId = newId;
  }

  runStarted(graph: CompiledGraph<unknown>): NewEvent {
    return this.event(GraphEventTypes.RUN_STARTED, runStartedPayload(graph) as unknown as Json, null);
  }

  /**
   * `before`, then `node-dispatched` for each command of a batch, then (with `retrySafe`, the
   * binding's flag of a node) `node-attempt-started` for each; without it the attempts are
   * left for whoever runs each position.
   */
  dispatchBatch(batch: readonly DispatchCommand[], retrySafe: ((nodeId: string) => boolean) | null, before: readonly NewEvent[] = []): NewEvent[] {
    const events = before.slice();
    for (const command of batch) events.push(this.event(GraphEventTypes.NODE_DISPATCHED, frozenPayload(DISPATCHED_KEYS, [command.nodeId, command.position]), null));
    if (retrySafe === null) return events;
    for (let index = 0; index < batch.length; index++) {
      const command = batch[index]!;
      const payload = frozenPayload(STARTED_KEYS, [1, command.nodeId, command.position, retrySafe(command.nodeId)]);
      events.push(this.event(GraphEventTypes.NODE_ATTEMPT_STARTED, payload, events[before.length + index]!.eventId));
    }
    return events;
  }

  attemptStarted(open: OpenAttempt, attempt: number, retrySafe: boolean): NewEvent {
    return this.event(GraphEventTypes.NODE_ATTEMPT_STARTED, frozenPayload(STARTED_KEYS, [attempt, open.nodeId, open.position, retrySafe]), open.dispatchEventId);
  }

  completed(open: OpenAttempt, result: Json): NewEvent {
    return this.event(GraphEventTypes.NODE_COMPLETED, frozenPayload(COMPLETED_KEYS, [open.nodeId, open.position, result]), open.dispatchEventId);
  }

  paused(open: OpenAttempt, reason: string, request: Json): NewEvent {
    return this.event(GraphEventTypes.NODE_PAUSED, frozenPayload(PAUSED_KEYS, [open.nodeId, open.position, reason, request]), open.dispatchEventId);
  }

  retried(open: OpenAttempt, attempt: number, code: string, message: string): NewEvent {
    return this.event(GraphEventTypes.NODE_RETRIED, frozenPayload(RETRIED_KEYS, [attempt, code, message, open.nodeId, open.position]), open.dispatchEventId);
  }

  failed(open: OpenAttempt, code: string, message: string): NewEvent {
    return this.event(GraphEventTypes.NODE_FAILED, frozenPayload(FAILED_KEYS, [code, message, open.nodeId, open.position]), open.dispatchEventId);
  }

  resumed(open: OpenAttempt, value: Json): NewEvent {
    return this.event(GraphEventTypes.NODE_RESUMED, { nodeId: open.nodeId, position: open.position, value }, open.dispatchEventId);
  }

  event(type: string, payload: Json, causationId: string | null): NewEvent {
    return checkedNewEvent(this.#newId(), type, 1, this.#timestamp(), this.#runId, causationId, payload);
  }

  /** The clock's reading as `YYYY-MM-DDTHH:MM:SS.mmmZ` (an invalid date throws RangeError, as before). */
  #timestamp(): string {
    const now = this.#clock();
    const time = typeof now === 'number' ? now : now.getTime();
    if (time !== this.#lastTime) {
      this.#lastTimestamp = new Date(time).toISOString();
      this.#lastTime = time;
    }
    return this.#lastTimestamp;
  }
}

/** The fields of the payloads the executor writes most, in canonical order. */
const DISPATCHED_KEYS = Object.freeze(['nodeId', 'position']);
const STARTED_KEYS = Object.freeze(['attempt', 'nodeId', 'position', 'retrySafe']);
const COMPLETED_KEYS = Object.freeze(['nodeId', 'position', 'result']);
const PAUSED_KEYS = Object.freeze(['nodeId', 'position', 'reason', 'request']);
const RETRIED_KEYS = Object.freeze(['attempt', 'code', 'message', 'nodeId', 'position']);
const FAILED_KEYS = Object.freeze(['code', 'message', 'nodeId', 'position']);

/**
 * A payload checked, canonicalised, measured and frozen from its fields (`freezeJsonFields`: no
 * object of ours to reflect on, and a result frozen before is shared, not walked): the check
 * before writing, the storage's preflight and the fold then reuse that work instead of walking
 * the payload again. Payloads are JSON by construction (checked results, recordable text,
 * canonical requests, ids from the graph).
 */
function frozenPayload(keys: readonly string[], values: readonly Json[]): Json {
  return freezeJsonFields(keys, values).value;
}
