import { describe, expect, it } from 'vitest';
import { GraphEventTypes, graphEventProblem } from './index.js';
import { attemptSteps, recordOf, refusal } from './__fixtures__/recordFixtures.js';
import { compileTeam, team } from './__fixtures__/teamFixtures.js';

const graph = compileTeam(team({ members: [{ id: 'a' }], rooms: null, maxTurnsPerMember: 1 }));
const position = 'team/a/1';
const { dispatched, started, retried } = attemptSteps('a', position);

describe('graphEventProblem: the one shape check of writer and fold', () => {
  it.each([
    ['a failure message that is a number', { type: GraphEventTypes.NODE_FAILED, version: 1, payload: { nodeId: 'a', position, code: 'X', message: 42 } }],
    ['a missing message', { type: GraphEventTypes.NODE_FAILED, version: 1, payload: { nodeId: 'a', position, code: 'X' } }],
    ['an object reason', { type: GraphEventTypes.NODE_PAUSED, version: 1, payload: { nodeId: 'a', position, reason: {}, request: null } }],
    ['attempt 0', { type: GraphEventTypes.NODE_ATTEMPT_STARTED, version: 1, payload: { nodeId: 'a', position, attempt: 0, retrySafe: true } }],
    ['a position that is not an identifier', { type: GraphEventTypes.NODE_DISPATCHED, version: 1, payload: { nodeId: 'a', position: ' x' } }],
    ['version 2', { type: GraphEventTypes.NODE_DISPATCHED, version: 2, payload: { nodeId: 'a', position } }],
    ['an unknown graph type', { type: 'graph:node-exploded', version: 1, payload: {} }],
    ['a nodeId that is a number', { type: GraphEventTypes.NODE_COMPLETED, version: 1, payload: { nodeId: 1, position, result: null } }],
    ['a retrySafe that is a string', { type: GraphEventTypes.NODE_ATTEMPT_STARTED, version: 1, payload: { nodeId: 'a', position, attempt: 1, retrySafe: 'yes' } }],
    ['a retried attempt of 1.5', { type: GraphEventTypes.NODE_RETRIED, version: 1, payload: { nodeId: 'a', position, attempt: 1.5, code: 'X', message: 'm' } }],
    ['a retried code that is null', { type: GraphEventTypes.NODE_RETRIED, version: 1, payload: { nodeId: 'a', position, attempt: 1, code: null, message: 'm' } }],
    ['a payload that is an array', { type: GraphEventTypes.NODE_RESUMED, version: 1, payload: ['a', position, null] }],
    ['a payload that is null', { type: GraphEventTypes.NODE_RESUMED, version: 1, payload: null }],
  ])('refuses %s, and the fold refuses the same event', (_name, event) => {
    expect(graphEventProblem(event)).not.toBeNull();
    const [type, payload] = [event.type, event.payload];
    const events = recordOf(graph, dispatched, started(1));
    events.push({ revision: events.length + 1, eventId: 'bad', type, version: event.version, payload });
    expect(refusal(graph, events)).toContain(graphEventProblem(event)!);
  });

  it('passes host events and well-formed graph events', () => {
    expect(graphEventProblem({ type: 'host:note', version: 9, payload: 'anything' })).toBeNull();
    expect(graphEventProblem({ type: GraphEventTypes.NODE_RETRIED, version: 1, payload: retried(1)[1] })).toBeNull();
  });
});
