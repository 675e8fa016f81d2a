import { isRoundtableError } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import {
  GraphEventTypes,
  GraphExecutionError,
  RunRecordFolder,
  TEAM_GRAPH_KIND,
  compileStoredDefinition,
  isGraphExecutionError,
  isGraphValidationError,
  nextStep,
  parseRunForkedEvent,
  parseRunStartedEvent,
  teamMemberStates,
} from '@roundtable/graph';
import type { AttemptStatus, CompiledGraph, RunStatus as GraphRunStatus, NextStep, StoredRunDefinition, TeamDefinition, TeamMessage, TeamState } from '@roundtable/graph';
import type { StoredEvent } from '@roundtable/storage';
import { knownGraphTypes } from './graphTypes.js';

export interface AttemptPost {
  readonly roomId: string;
  readonly text: string;
  readonly mentions: readonly string[];
  readonly messageId: string;
}

/** One attempt of one position, from its dispatch (or resume) to its outcome. */
export interface AttemptRecord {
  readonly position: string;
  readonly nodeId: string;
  /** 1 for the first attempt; 0 for a position dispatched and never started. */
  attempt: number;
  readonly dispatchedAt: string;
  startedAt: string | null;
  endedAt: string | null;
  /** From the attempt's start (or dispatch) to its outcome, from the record's timestamps. */
  durationMs: number | null;
  /**
   * Graph's `AttemptStatus`: `dispatched` (never started), `started` (no outcome yet: running, or
   * its process stopped), `resumed` (opened by a resume or a retry and not started yet, or
   * started and then resumed after its process stopped), `paused`, `retried`, `completed`,
   * `failed` (a `graph:node-failed`, or a completion the graph refused: then `code` says why).
   */
  status: AttemptStatus;
  code: string | null;
  message: string | null;
  reason: string | null;
  request: Json | null;
  /** The value the host resumed this attempt with, when it was paused and resumed. */
  resumeValue: Json | null;
  /** Accepted messages of this attempt (team runs only). */
  posts: AttemptPost[];
  /** Revisions of the events that make up this attempt. */
  readonly revisions: number[];
}

/**
 * Graph's `RunStatus` (`running`, `waiting`, `paused`, `complete`, `failed`, `cancelled`), or why none can be
 * given: `unknown` (a graph type the CLI does not know), `unreadable` (the record cannot be read
 * or folded).
 */
export type RunStatusKind = GraphRunStatus | 'unknown' | 'unreadable';

export interface RunFailure {
  readonly memberId: string;
  readonly position: string;
  readonly code: string;
  readonly message: string;
}

/** What a fresh executor would report about the run (computed without appending anything). */
export interface RunStatus {
  readonly kind: RunStatusKind;
  /** `complete`, `failed <code>`, `paused <reason>`, `waiting`, `running`, `cancelled`, `unknown <kind>`, `unreadable <code>`. */
  readonly text: string;
  readonly code?: string;
  readonly message?: string;
  readonly reason?: string;
  /** Waiting: the unfinished positions. Running: the positions due next. Paused: the paused one. */
  readonly positions?: readonly string[];
  readonly request?: Json;
  readonly output?: Json;
  readonly failures?: readonly RunFailure[];
}

export interface RecordProblem {
  readonly revision: number;
  readonly code: string;
  readonly message: string;
}

export interface RunDefinitionSummary {
  readonly id: string | null;
  readonly kind: string;
  readonly typeVersion: number;
  readonly digest: string;
  readonly definitionVersion: number | null;
  /** Node ids in declaration order. */
  readonly members: readonly string[];
}

/** A fork in a run's lineage: `graph:run-forked` at run revision `at + 1`, going on from `from`'s revision `at`. */
export interface ForkPoint {
  readonly from: string;
  readonly at: number;
}

export interface RunReport {
  readonly runId: string;
  /**
   * The forks the run's record goes through, oldest first: empty for a run that is not a fork;
   * the last is the run's own (`roundtable fork`), any before it its parents'.
   */
  readonly forks: readonly ForkPoint[];
  /** The last revision read. */
  readonly revision: number;
  readonly firstEventAt: string | null;
  readonly lastEventAt: string | null;
  readonly definition: RunDefinitionSummary | null;
  /** Dispatched positions: a team member's turns. */
  readonly turns: number;
  readonly attempts: readonly AttemptRecord[];
  readonly status: RunStatus;
  /** The first problem met while reading (a damaged record, an event the strict fold refuses). */
  readonly problem: RecordProblem | null;
  /** Team runs: the declared rooms and every accepted message in saved order. */
  readonly team: { readonly rooms: readonly { id: string; members: readonly string[] }[]; readonly messages: readonly TeamMessage[] } | null;
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function millisBetween(from: string | null, to: string | null): number | null {
  if (from === null || to === null) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? ms : null;
}

function problemOf(error: unknown, revision: number): RecordProblem {
  if (isRoundtableError(error)) {
    const detail = error.details?.revision;
    return { revision: typeof detail === 'number' ? detail : revision, code: error.code, message: error.message };
  }
  return { revision, code: 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Reads a run's record event by event and keeps what people want to see: the definition,
 * every attempt from dispatch to outcome (from the generic `graph:node-*` events, so any graph
 * kind can be shown), and, for kinds in `knownGraphTypes`, the strict fold the executor uses,
 * from which the status is decided exactly as a fresh executor would (without appending).
 * Team specifics (rooms, posts, mentions) are read only for kind 'team'. It never throws for a
 * bad record: the first problem is kept in `problem` and the status becomes `unreadable`.
 */
export class RunInspector {
  revision = 0;
  problem: RecordProblem | null = null;
  /** The read failure that ended the record early (the adapter's damage checks), if any. */
  damage: RecordProblem | null = null;
  readonly attempts: AttemptRecord[] = [];
  private stored: StoredRunDefinition | null = null;
  private folder: RunRecordFolder<unknown> | null = null;
  private graph: CompiledGraph<unknown> | null = null;
  private unknownKind = false;
  private firstEventAt: string | null = null;
  private lastEventAt: string | null = null;
  /** The latest attempt record of each position. */
  private readonly latest = new Map<string, AttemptRecord>();
  private dispatchedCount = 0;
  private readonly forks: ForkPoint[] = [];

  constructor(readonly runId: string) {}

  /** Applies the next stored event. After a problem, events only advance the revision. */
  apply(event: StoredEvent): void {
    if (this.firstEventAt === null) this.firstEventAt = event.timestamp;
    this.lastEventAt = event.timestamp;
    if (this.problem !== null) {
      this.revision = event.revision;
      return;
    }
    try {
      if (event.revision === 1) this.start(event);
      const messagesBefore = this.teamState()?.messageCount ?? 0;
      this.folder?.apply(event);
      this.track(event, messagesBefore);
      this.revision = event.revision;
    } catch (error) {
      this.problem = problemOf(error, event.revision);
      this.revision = event.revision;
    }
  }

  /** Call at the end of a whole read (not while following): a dispatch batch never ends a read half-way. */
  endOfRead(): void {
    if (this.problem !== null || this.folder === null) return;
    try {
      this.folder.endOfRead();
    } catch (error) {
      this.problem = problemOf(error, this.revision);
    }
  }

  /** A read failed (a damaged record): the problem is at the revision after the last good one. */
  fail(error: unknown): void {
    this.damage = problemOf(error, this.revision + 1);
    if (this.problem === null) this.problem = this.damage;
  }

  /** The team state folded so far, for team runs without a problem; else null. */
  teamState(): TeamState | null {
    if (this.stored?.kind !== TEAM_GRAPH_KIND || this.folder === null) return null;
    return this.folder.state as TeamState;
  }

  report(): RunReport {
    const value = this.stored?.value;
    const definition: RunDefinitionSummary | null =
      this.stored === null
        ? null
        : {
            id: isObject(value) ? text(value.id) : null,
            kind: this.stored.kind,
            typeVersion: this.stored.typeVersion,
            digest: this.stored.digest,
            definitionVersion: isObject(value) && typeof value.definitionVersion === 'number' ? value.definitionVersion : null,
            members: isObject(value) && Array.isArray(value.nodes) ? value.nodes.map((node) => (isObject(node) && typeof node.id === 'string' ? node.id : '?')) : [],
          };
    const state = this.teamState();
    const teamDefinition = this.stored?.kind === TEAM_GRAPH_KIND ? (value as unknown as TeamDefinition) : null;
    return {
      runId: this.runId,
      forks: this.forks,
      revision: this.revision,
      firstEventAt: this.firstEventAt,
      lastEventAt: this.lastEventAt,
      definition,
      turns: this.dispatchedCount,
      attempts: this.attempts,
      status: this.status(),
      problem: this.problem,
      team:
        teamDefinition === null
          ? null
          : {
              rooms: (teamDefinition.data?.communication?.rooms ?? []).map((room) => ({ id: room.id, members: room.members })),
              messages: state === null ? [] : state.log.slice(0, state.messageCount),
            },
    };
  }

  private start(event: StoredEvent): void {
    const stored = parseRunStartedEvent(event);
    this.stored = stored;
    try {
      this.graph = compileStoredDefinition(stored, [...knownGraphTypes.values()], this.runId);
    } catch (error) {
      if (isGraphExecutionError(error, 'UNKNOWN_GRAPH_TYPE')) {
        this.unknownKind = true;
        return;
      }
      if (!isGraphValidationError(error)) throw error;
      throw new GraphExecutionError('INVALID_EVENT', `The stored ${stored.kind} definition does not validate: ${error.message}`, { details: { revision: 1 }, cause: error });
    }
    this.folder = new RunRecordFolder(this.graph);
  }

  /** Builds the attempt timeline from the generic graph:node-* events. */
  private track(event: StoredEvent, messageCountBefore: number): void {
    if (event.type === GraphEventTypes.RUN_FORKED) return this.forked(event);
    if (!event.type.startsWith('graph:node-') || !isObject(event.payload)) return;
    const payload = event.payload;
    const position = text(payload.position);
    const nodeId = text(payload.nodeId);
    if (position === null || nodeId === null) return;
    const at = event.timestamp;
    const current = this.latest.get(position);
    switch (event.type) {
      case GraphEventTypes.NODE_DISPATCHED: {
        this.dispatchedCount++;
        this.push({ position, nodeId, attempt: 0, dispatchedAt: at, status: 'dispatched', revision: event.revision });
        return;
      }
      case GraphEventTypes.NODE_ATTEMPT_STARTED: {
        const attempt = typeof payload.attempt === 'number' ? payload.attempt : (current?.attempt ?? 0) + 1;
        if (current !== undefined && current.startedAt === null && (current.status === 'dispatched' || current.status === 'resumed')) {
          current.attempt = attempt;
          current.startedAt = at;
          current.status = 'started';
          current.revisions.push(event.revision);
        } else {
          this.push({ position, nodeId, attempt, dispatchedAt: at, status: 'started', revision: event.revision, startedAt: at });
        }
        return;
      }
      case GraphEventTypes.NODE_RESUMED: {
        if (current === undefined) return;
        current.revisions.push(event.revision);
        current.resumeValue = payload.value ?? null;
        if (current.status === 'started') this.end(current, 'resumed', at);
        // The next attempt starts from this resume.
        this.push({ position, nodeId, attempt: current.attempt, dispatchedAt: at, status: 'resumed', revision: event.revision, placeholder: true });
        return;
      }
      case GraphEventTypes.NODE_RETRIED: {
        if (current === undefined) return;
        current.revisions.push(event.revision);
        current.code = text(payload.code);
        current.message = text(payload.message);
        this.end(current, 'retried', at);
        this.push({ position, nodeId, attempt: current.attempt, dispatchedAt: at, status: 'resumed', revision: event.revision, placeholder: true });
        return;
      }
      case GraphEventTypes.NODE_COMPLETED: {
        if (current === undefined) return;
        current.revisions.push(event.revision);
        const state = this.teamState();
        // The fold already applied this completion: a member that failed on it had its result refused.
        const member = state === null ? undefined : teamMemberStates(state).find((entry) => entry.id === nodeId);
        const refused = member?.status === 'failed' && current.status === 'started';
        if (refused) {
          current.code = member.failureCode ?? 'RESULT_INVALID';
          current.message = 'The graph refused the result; no post of this turn was delivered.';
        }
        this.end(current, refused ? 'failed' : 'completed', at);
        if (state !== null) {
          for (const message of state.log.slice(messageCountBefore, state.messageCount)) {
            current.posts.push({ roomId: message.roomId, text: message.text, mentions: message.mentions, messageId: message.id });
          }
        }
        return;
      }
      case GraphEventTypes.NODE_FAILED: {
        if (current === undefined) return;
        current.revisions.push(event.revision);
        current.code = text(payload.code);
        current.message = text(payload.message);
        this.end(current, 'failed', at);
        return;
      }
      case GraphEventTypes.NODE_PAUSED: {
        if (current === undefined) return;
        current.revisions.push(event.revision);
        current.reason = text(payload.reason);
        current.request = payload.request ?? null;
        this.end(current, 'paused', at);
        return;
      }
    }
  }

  /** A fork point (the fold accepted it): each attempt started without an outcome is abandoned, and runs again as the next attempt. */
  private forked(event: StoredEvent): void {
    const { from, at } = parseRunForkedEvent(event);
    this.forks.push({ from, at });
    for (const current of [...this.latest.values()]) {
      if (current.status !== 'started') continue;
      current.revisions.push(event.revision);
      this.end(current, 'resumed', event.timestamp);
      this.push({ position: current.position, nodeId: current.nodeId, attempt: current.attempt, dispatchedAt: event.timestamp, status: 'resumed', revision: event.revision, placeholder: true });
    }
  }

  private push(entry: { position: string; nodeId: string; attempt: number; dispatchedAt: string; status: AttemptStatus; revision: number; startedAt?: string; placeholder?: boolean }): void {
    const record: AttemptRecord = {
      position: entry.position,
      nodeId: entry.nodeId,
      // A resume or retry opens the next attempt: it is filled in when that attempt starts.
      attempt: entry.placeholder === true ? entry.attempt + 1 : entry.attempt,
      dispatchedAt: entry.dispatchedAt,
      startedAt: entry.startedAt ?? null,
      endedAt: null,
      durationMs: null,
      status: entry.status,
      code: null,
      message: null,
      reason: null,
      request: null,
      resumeValue: null,
      posts: [],
      revisions: [entry.revision],
    };
    this.attempts.push(record);
    this.latest.set(entry.position, record);
  }

  private end(record: AttemptRecord, status: AttemptStatus, at: string): void {
    record.status = status;
    record.endedAt = at;
    record.durationMs = millisBetween(record.startedAt ?? record.dispatchedAt, at);
  }

  private status(): RunStatus {
    if (this.problem !== null) return { kind: 'unreadable', text: `unreadable ${this.problem.code}`, code: this.problem.code, message: this.problem.message };
    if (this.stored === null) return { kind: 'unreadable', text: 'unreadable (no events)', code: 'RUN_NOT_FOUND', message: `Run ${this.runId} has no events.` };
    if (this.unknownKind || this.folder === null || this.graph === null) {
      return { kind: 'unknown', text: `unknown ${this.stored.kind} v${this.stored.typeVersion}`, code: 'UNKNOWN_GRAPH_KIND' };
    }
    let step: NextStep;
    try {
      step = nextStep(this.graph, this.folder);
    } catch (error) {
      const problem = problemOf(error, this.revision);
      return { kind: 'unreadable', text: `unreadable ${problem.code}`, code: problem.code, message: problem.message };
    }
    switch (step.kind) {
      case 'start':
      case 'attempts':
        return { kind: 'waiting', text: 'waiting', positions: step.kind === 'attempts' ? step.positions : [] };
      case 'dispatch':
        return { kind: 'running', text: 'running', positions: step.batch.map((command) => command.position) };
      case 'complete':
        return { kind: 'complete', text: 'complete', output: step.output };
      case 'fail':
        return { kind: 'failed', text: `failed ${step.code}`, code: step.code, message: step.message, failures: this.failures() };
      case 'pause':
        return { kind: 'paused', text: `paused ${step.reason}`, reason: step.reason, positions: step.position === null ? [] : [step.position], request: step.request };
      case 'cancelled':
        // Cancelled (SPEC 20) with no attempt in flight; while one is, the step is `attempts` (waiting).
        return { kind: 'cancelled', text: 'cancelled', reason: step.reason };
    }
  }

  private members(): string[] {
    return this.graph?.definition.value.nodes.map((node) => node.id) ?? [];
  }

  /** Every member whose last attempt failed (a completion the graph refused included), in declaration order. */
  private failures(): RunFailure[] {
    const failures: RunFailure[] = [];
    for (const memberId of this.members()) {
      const last = [...this.latest.values()].filter((record) => record.nodeId === memberId).at(-1);
      if (last === undefined || last.status !== 'failed') continue;
      failures.push({ memberId, position: last.position, code: last.code ?? 'UNKNOWN', message: last.message ?? '' });
    }
    return failures;
  }
}
