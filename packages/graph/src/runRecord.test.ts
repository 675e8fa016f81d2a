import { describe, expect, it } from 'vitest';
import type { Json } from '@roundtable/core';
import { GraphEventTypes, RunRecordFolder, graphEventProblem, isGraphExecutionError, runStartedPayload } from './index.js';
import type { RecordedEvent, TeamState } from './index.js';
import { compileTeam, team } from './testing/teamFixtures.js';

const graph = compileTeam(team({ members: [{ id: 'a' }], rooms: null, maxTurnsPerMember: 1 }));
const position = 'team/a/1';

function recordOf(...rest: [string, Json][]): RecordedEvent[] {
  const all: [string, Json][] = [[GraphEventTypes.RUN_STARTED, runStartedPayload(graph as never) as unknown as Json], ...rest];
  return all.map(([type, payload], index) => ({ revision: index + 1, eventId: `e${index + 1}`, type, version: 1, payload }));
}

function fold(events: readonly RecordedEvent[]): RunRecordFolder<TeamState> {
  const folder = new RunRecordFolder(graph);
  for (const event of events) folder.apply(event);
  folder.endOfRead();
  return folder;
}

const dispatched: [string, Json] = [GraphEventTypes.NODE_DISPATCHED, { nodeId: 'a', position }];
const started = (attempt: number): [string, Json] => [GraphEventTypes.NODE_ATTEMPT_STARTED, { nodeId: 'a', position, attempt, retrySafe: false }];
const retried = (attempt: number, code = 'EFFECT_FAILED'): [string, Json] => [
  GraphEventTypes.NODE_RETRIED,
  { nodeId: 'a', position, attempt, code, message: `attempt ${attempt} failed` },
];

function invalid(events: readonly RecordedEvent[]): string {
  try {
    fold(events);
  } catch (error) {
    expect(isGraphExecutionError(error, 'INVALID_EVENT')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected INVALID_EVENT');
}

describe('the fold and graph:node-retried (SPEC 11.4)', () => {
  it('keeps the member in flight, in the resumed-not-restarted state, with the failure for the next attempt', () => {
    const folder = fold(recordOf(dispatched, started(1), retried(1)));
    expect(folder.open.get(position)).toMatchObject({ status: 'resumed', attempt: 1, retries: 1, previousFailure: { code: 'EFFECT_FAILED', message: 'attempt 1 failed' } });
    expect(folder.state.members[0]).toMatchObject({ status: 'in-flight', inFlight: position });
    const next = fold(recordOf(dispatched, started(1), retried(1), started(2), retried(2, 'TIMEOUT'), started(3)));
    expect(next.open.get(position)).toMatchObject({ status: 'started', attempt: 3, retries: 2, previousFailure: { code: 'TIMEOUT' } });
  });

  it('accepts it only after an attempt start without an outcome, for the attempt in flight', () => {
    expect(invalid(recordOf(dispatched, retried(1)))).toMatch(/no attempt in flight/);
    expect(invalid(recordOf(dispatched, started(1), retried(2)))).toMatch(/attempt must be 1/);
    expect(invalid(recordOf(dispatched, started(1), retried(1), retried(1)))).toMatch(/no attempt in flight/);
    const paused: [string, Json] = [GraphEventTypes.NODE_PAUSED, { nodeId: 'a', position, reason: 'ask', request: null }];
    expect(invalid(recordOf(dispatched, started(1), paused, retried(1)))).toMatch(/no attempt in flight/);
    expect(invalid(recordOf(dispatched, started(1), [GraphEventTypes.NODE_RETRIED, { nodeId: 'a', position, attempt: 1, code: 'X' }]))).toMatch(/exactly the fields/);
  });

  it('records every node-failed in record order', () => {
    const failed: [string, Json] = [GraphEventTypes.NODE_FAILED, { nodeId: 'a', position, code: 'DENIED', message: 'no' }];
    expect(fold(recordOf(dispatched, started(1), retried(1), started(2), failed)).failures).toEqual([{ nodeId: 'a', position, code: 'DENIED', message: 'no' }]);
  });
});

describe('graphEventProblem: the one shape check of writer and fold', () => {
  it.each([
    ['a failure message that is a number', { type: GraphEventTypes.NODE_FAILED, version: 1, payload: { nodeId: 'a', position, code: 'X', message: 42 } }],
    ['a missing message', { type: GraphEventTypes.NODE_FAILED, version: 1, payload: { nodeId: 'a', position, code: 'X' } }],
    ['an object reason', { type: GraphEventTypes.NODE_PAUSED, version: 1, payload: { nodeId: 'a', position, reason: {}, request: null } }],
    ['attempt 0', { type: GraphEventTypes.NODE_ATTEMPT_STARTED, version: 1, payload: { nodeId: 'a', position, attempt: 0, retrySafe: true } }],
    ['a position that is not an identifier', { type: GraphEventTypes.NODE_DISPATCHED, version: 1, payload: { nodeId: 'a', position: ' x' } }],
    ['version 2', { type: GraphEventTypes.NODE_DISPATCHED, version: 2, payload: { nodeId: 'a', position } }],
    ['an unknown graph type', { type: 'graph:node-exploded', version: 1, payload: {} }],
  ])('refuses %s, and the fold refuses the same event', (_name, event) => {
    expect(graphEventProblem(event)).not.toBeNull();
    const [type, payload] = [event.type, event.payload as Json];
    const events = recordOf(dispatched, started(1));
    events.push({ revision: events.length + 1, eventId: 'bad', type, version: event.version, payload });
    expect(invalid(events)).toContain(graphEventProblem(event)!);
  });

  it('passes host events and well-formed graph events', () => {
    expect(graphEventProblem({ type: 'host:note', version: 9, payload: 'anything' })).toBeNull();
    expect(graphEventProblem({ type: GraphEventTypes.NODE_RETRIED, version: 1, payload: retried(1)[1] })).toBeNull();
  });
});

describe('RunRecordFolder.stateAfter: the state an append leads to (SPEC 11.1)', () => {
  it('returns the folded state without applying, and applying the same events reuses it', () => {
    const events = recordOf(dispatched, started(1), [GraphEventTypes.NODE_COMPLETED, { nodeId: 'a', position, result: { summary: 'done' } }]);
    const folder = fold(events.slice(0, 3));
    const before = folder.state;
    const outcome = events[3]!;
    const ahead = folder.stateAfter([outcome]);
    expect(folder.state).toBe(before);
    expect(folder.revision).toBe(3);
    expect(ahead).toEqual(fold(events).state);
    folder.apply({ ...outcome });
    expect(folder.state).toBe(ahead);
    expect(folder.open.size).toBe(0);
  });

  it('reduces again when a different event is applied instead', () => {
    const failed: [string, Json] = [GraphEventTypes.NODE_FAILED, { nodeId: 'a', position, code: 'DENIED', message: 'no' }];
    const events = recordOf(dispatched, started(1), failed);
    const folder = fold(events.slice(0, 3));
    const ahead = folder.stateAfter([{ type: GraphEventTypes.NODE_COMPLETED, version: 1, payload: { nodeId: 'a', position, result: { summary: 'done' } } }]);
    folder.apply(events[3]!);
    expect(folder.state).not.toEqual(ahead);
    expect(folder.state).toEqual(fold(events).state);
    expect(folder.state.members[0]).toMatchObject({ status: 'failed', failureCode: 'DENIED' });
  });
});
