import { GraphEventTypes, graphEventProblem } from '@roundtable/graph';
import type { CompiledGraph, DispatchCommand, OpenAttempt } from '@roundtable/graph';
import { assertNewEvent, isStorageError } from '@roundtable/storage';
import type { NewEvent, StorageErrorCode } from '@roundtable/storage';
import { AttemptFailureCodes } from './attemptOutcome.js';
import type { AttemptOutcome } from './attemptOutcome.js';
import type { CancelWatch } from './cancelWatch.js';
import type { NodeFailure, ResolvedBinding } from './nodeBinding.js';
import { newStepLog, startedAttempt } from './runRecord.js';
import type { RunRecord, StepLog } from './runRecord.js';
import type { RunEvents } from './runEvents.js';
import { recordableText, thrownMessage } from './safeText.js';

/** An attempt's outcome as the member left it (an aborted attempt records nothing). */
export type RecordableOutcome = Exclude<AttemptOutcome, { kind: 'aborted' }>;

/** Who an outcome is recorded for: the call's log and signal, and whether it starts the attempts of a batch it dispatches. */
export interface OutcomeCaller {
  readonly log: StepLog;
  readonly signal: AbortSignal;
  /** True in `run`/`resume` (the batch's attempts run here next); false in a step, which only dispatches. */
  readonly startsAttempts: boolean;
  /** The call's watch for a cancel (SPEC 20), which aborts its attempts' signal. */
  readonly watch?: CancelWatch;
}

/**
 * Records exactly one outcome per started attempt, with group commit (SPEC 11.1): outcomes that
 * arrive while an append is in flight are written together by the next one, and when they
 * leave no attempt in flight and `decide` then dispatches, the same append carries that batch
 * (and, for a caller that starts attempts, the start of each).
 */
export class OutcomeRecorder<State> {
  readonly #record: RunRecord<State>;
  readonly #events: RunEvents;
  readonly #graph: CompiledGraph<State>;
  readonly #retrySafe: (nodeId: string) => boolean;
  /** Outcomes waiting for the next append. */
  #pending: PendingOutcome[] = [];
  /** A dispatch batch appended, with its attempts started, in the same append as an outcome. */
  #startedBatch: readonly DispatchCommand[] | null = null;

  constructor(record: RunRecord<State>, events: RunEvents, graph: CompiledGraph<State>, bindings: ReadonlyMap<string, ResolvedBinding>) {
    this.#record = record;
    this.#events = events;
    this.#graph = graph;
    this.#retrySafe = (nodeId) => bindings.get(nodeId)!.retrySafe;
  }

  /** The batch the last grouped append dispatched and started, once (null when there is none). */
  takeStartedBatch(): readonly DispatchCommand[] | null {
    const batch = this.#startedBatch;
    this.#startedBatch = null;
    return batch;
  }

  /**
   * Records the outcome of a started attempt. Every event is checked before it is written by
   * the same shape check the fold applies and by the storage's envelope check, so the record
   * never holds an outcome that a later fold refuses. Returns the event written, or null when
   * another executor moved the attempt on (a `node-retried` means: start the next attempt).
   */
  record(open: OpenAttempt, attempt: number, binding: ResolvedBinding, outcome: RecordableOutcome, caller: OutcomeCaller): Promise<NewEvent | null> {
    let event = this.#outcomeEvent(open, attempt, binding, outcome);
    const problem = unrecordable(event);
    if (problem !== null) {
      event = this.#failureEvent(open, binding, {
        code: outcome.kind === 'completed' ? AttemptFailureCodes.RESULT_INVALID : AttemptFailureCodes.EFFECT_FAILED,
        message: `The attempt's outcome cannot be recorded: ${problem}`,
      }, attempt);
    }
    return new Promise<NewEvent | null>((resolve, reject) => {
      this.#pending.push({ open, attempt, binding, event, caller, resolve, reject, settled: false });
      void this.#record.exclusive(() => this.#flush());
    });
  }

  /**
   * Writes every outcome waiting, in arrival order, in one append, with the batch `decide`
   * returns after them. If the storage refuses the grouped append (a conflict, or content it
   * will not hold), each outcome is written alone with the usual conflict and refusal
   * handling, and nothing else.
   */
  async #flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length === 0) return;
    try {
      const ours: PendingOutcome[] = [];
      const outcomes: NewEvent[] = [];
      for (const entry of pending) {
        const current = this.#record.folder.openAttempt(entry.open.position);
        if (current !== undefined && current.status === 'started' && current.attempt === entry.attempt) {
          ours.push(entry);
          outcomes.push(entry.event);
        } else settle(entry, null);
      }
      if (ours.length === 0) return;
      const next = ours.some((entry) => entry.caller.signal.aborted) ? null : this.#batchAfter(outcomes);
      const starts = ours.every((entry) => entry.caller.startsAttempts);
      const events = next === null ? outcomes : this.#events.dispatchBatch(next, starts ? this.#retrySafe : null, outcomes);
      try {
        await this.#record.appendAndFold(events, newStepLog(), next === null ? undefined : { commands: next, at: outcomes.length });
        if (starts) this.#startedBatch = next;
        for (const entry of ours) entry.caller.log.written.push(entry.event);
        for (let index = outcomes.length; index < events.length; index++) ours[0]!.caller.log.written.push(events[index]!);
        for (const entry of ours) settle(entry, entry.event);
        return;
      } catch (error) {
        if (!isStorageError(error, 'REVISION_CONFLICT') && refusedOutcome(error) === null) throw error;
        this.#record.dropLookAhead();
      }
      for (const entry of ours) settle(entry, await this.#recordAlone(entry));
    } catch (error) {
      for (const entry of pending) if (!entry.settled) entry.reject(error);
    }
  }

  /**
   * The dispatch batch `decide` returns once `outcomes` are folded, or null when they leave an
   * attempt in flight, `decide` ends the run, or the batch is one the step loop refuses.
   */
  #batchAfter(outcomes: readonly NewEvent[]): DispatchCommand[] | null {
    const folder = this.#record.folder;
    if (folder.cancelled !== null) return null;
    for (const attempt of folder.openAttempts()) {
      const type = finishedAs(outcomes, attempt.position);
      const stillOpen = type === undefined ? attempt.status !== 'paused' : type === GraphEventTypes.NODE_RETRIED;
      if (stillOpen) return null;
    }
    const commands = this.#graph.decide(this.#record.stateAfter(outcomes));
    if (commands.length === 0 || commands.some((command) => command.kind !== 'dispatch')) return null;
    const batch = commands as DispatchCommand[];
    const positions = new Set(batch.map((command) => command.position));
    if (positions.size !== batch.length || batch.some((command) => folder.hasDispatched(command.position))) return null;
    return batch;
  }

  /** One outcome in its own append; a content refusal records the failure instead. */
  async #recordAlone(entry: PendingOutcome): Promise<NewEvent | null> {
    const { open, attempt, binding, event, caller } = entry;
    const ours = startedAttempt(attempt);
    try {
      const written = await this.#record.appendWithRefold(open.position, ours, () => event, caller.log);
      return written ? event : null;
    } catch (error) {
      const failure = refusedOutcome(error);
      if (failure === null) throw error;
      const fallback = this.#failureEvent(open, binding, failure, attempt);
      const written = await this.#record.appendWithRefold(open.position, ours, () => fallback, caller.log);
      return written ? fallback : null;
    }
  }

  #outcomeEvent(open: OpenAttempt, attempt: number, binding: ResolvedBinding, outcome: RecordableOutcome): NewEvent {
    switch (outcome.kind) {
      case 'completed':
        return this.#events.completed(open, outcome.result);
      case 'failed':
        return this.#failureEvent(open, binding, outcome, attempt);
      case 'paused':
        return this.#events.paused(open, outcome.reason, outcome.request);
    }
  }

  /** `node-retried` while the binding's retry allows another attempt, else `node-failed`. */
  #failureEvent(open: OpenAttempt, binding: ResolvedBinding, failure: NodeFailure, attempt: number): NewEvent {
    const message = recordableText(failure.message);
    // maxAttempts counts failed attempts: a pause or a crash re-run does not use one up; a
    // cancelled run starts no attempt, so its failures are final.
    const retry = this.#record.folder.cancelled === null && binding.retry.codes.has(failure.code) && open.retries + 1 < binding.retry.maxAttempts;
    return retry ? this.#events.retried(open, attempt, failure.code, message) : this.#events.failed(open, failure.code, message);
  }
}

/** An outcome waiting for the next append. */
interface PendingOutcome {
  readonly open: OpenAttempt;
  readonly attempt: number;
  readonly binding: ResolvedBinding;
  readonly event: NewEvent;
  readonly caller: OutcomeCaller;
  readonly resolve: (written: NewEvent | null) => void;
  readonly reject: (error: unknown) => void;
  /** Set once `resolve` was called (a failure of the flush rejects only the others). */
  settled: boolean;
}

/** Resolves a waiting outcome with the event written for it (null: none, another writer moved the attempt on). */
function settle(entry: PendingOutcome, written: NewEvent | null): void {
  entry.settled = true;
  if (written === null) entry.caller.log.superseded = true;
  entry.resolve(written);
}

/** The type of the last of `outcomes` about `position`, or undefined when none is. */
function finishedAs(outcomes: readonly NewEvent[], position: string): string | undefined {
  for (let index = outcomes.length - 1; index >= 0; index--) {
    const outcome = outcomes[index]!;
    if ((outcome.payload as { position: string }).position === position) return outcome.type;
  }
  return undefined;
}

/** Why an event would be refused by the fold's shape check or the storage's envelope check, or null. */
function unrecordable(event: NewEvent): string | null {
  const problem = graphEventProblem(event);
  if (problem !== null) return problem;
  try {
    assertNewEvent(event);
    return null;
  } catch (error) {
    return thrownMessage(error);
  }
}

/**
 * How a storage refusal of an outcome's content is recorded instead: the attempt's failure code
 * and the message (given the storage's own message). Other storage errors are not about the
 * outcome and are thrown.
 */
const REFUSED_OUTCOMES: Readonly<Partial<Record<StorageErrorCode, { readonly code: string; readonly message: (storageMessage: string) => string }>>> = {
  STORAGE_LIMIT_EXCEEDED: { code: AttemptFailureCodes.RESULT_TOO_LARGE, message: (text) => `Storage refused the outcome as too large: ${text}` },
  // Never quote the storage's message: the secret must not reach the record.
  KNOWN_SECRET: { code: AttemptFailureCodes.KNOWN_SECRET, message: () => 'Storage refused the outcome: it contains a known secret.' },
  INVALID_STORED_VALUE: { code: AttemptFailureCodes.EFFECT_FAILED, message: (text) => `Storage refused the outcome: ${text}` },
};

/** The failure to record when the storage refused an outcome for its content, or null for other errors. */
function refusedOutcome(error: unknown): NodeFailure | null {
  if (!isStorageError(error)) return null;
  const rule = REFUSED_OUTCOMES[error.code];
  return rule === undefined ? null : { code: rule.code, message: rule.message(thrownMessage(error)) };
}
