import { copyFrozenJson, isJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { teamMemberStates, teamMessages } from './index.js';
import type { GraphEvent, TeamMemberState, TeamState } from './index.js';
import { compileTeam, event, events, fold, post, seedTeam, team } from './__fixtures__/teamFixtures.js';

const seed = compileTeam(seedTeam());

function member(state: TeamState, id: string): TeamMemberState {
  const found = teamMemberStates(state).find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no member ${id}`);
  return found;
}

const writerAsks = { summary: 'draft', posts: [post('review', 'Please review', ['reviewer'])] };
const reviewerReplies = { summary: 'ok', posts: [post('review', 'Looks good', ['writer'])] };

describe('initial state', () => {
  it('has every member idle with 0 turns, queued unless initialTurn is false, and no messages', () => {
    const state = seed.initialState();
    expect(teamMemberStates(state)).toEqual([
      { id: 'writer', status: 'idle', turns: 0, inFlight: null, pauseReason: null, failureCode: null, result: null, queued: true, triggers: [] },
      { id: 'reviewer', status: 'idle', turns: 0, inFlight: null, pauseReason: null, failureCode: null, result: null, queued: false, triggers: [] },
    ]);
    expect(teamMessages(state)).toEqual([]);
    expect(teamMessages(state, 'review')).toEqual([]);
  });

  it('gives each call a fresh state', () => {
    const first = seed.initialState();
    const advanced = fold(seed, [events.dispatched('writer', 1), events.completed('writer', 1, writerAsks)], first);
    expect(teamMessages(advanced)).toHaveLength(1);
    expect(teamMessages(seed.initialState())).toEqual([]);
    expect(teamMessages(first)).toEqual([]);
  });
});

describe('graph:node-dispatched', () => {
  it('makes an idle queued member in-flight with turns + 1, queued false and no triggers', () => {
    const state = seed.reduce(seed.initialState(), events.dispatched('writer', 1));
    expect(member(state, 'writer')).toMatchObject({ status: 'in-flight', turns: 1, inFlight: 'team/writer/1', queued: false, triggers: [] });
  });

  it('is ignored unless the position is team/<id>/<turns + 1>', () => {
    const initial = seed.initialState();
    for (const position of ['team/writer/2', 'team/writer/0', 'team/writer/01', 'team/writer/11', 'team/writer/1/', 'team/writer1', 'team/writer', 'writer/1', 'xteam/writer/1', 'team/reviewer/1']) {
      expect(seed.reduce(initial, event('node-dispatched', { nodeId: 'writer', position }))).toBe(initial);
    }
  });

  it('is ignored for a member that is not queued, already in flight, failed, or at its cap', () => {
    const initial = seed.initialState();
    expect(seed.reduce(initial, events.dispatched('reviewer', 1))).toBe(initial);
    const inFlight = seed.reduce(initial, events.dispatched('writer', 1));
    expect(seed.reduce(inFlight, events.dispatched('writer', 2))).toBe(inFlight);
    const failed = seed.reduce(inFlight, events.failed('writer', 1));
    expect(seed.reduce(failed, events.dispatched('writer', 2))).toBe(failed);

    const solo = compileTeam(team({ members: [{ id: 'solo' }], maxTurnsPerMember: 1 }));
    const capped = fold(solo, [events.dispatched('solo', 1), events.completed('solo', 1, { summary: 's', posts: [post('all', 'again', ['solo'])] })]);
    expect(member(capped, 'solo')).toMatchObject({ turns: 1, queued: true });
    expect(solo.reduce(capped, events.dispatched('solo', 2))).toBe(capped);
  });

  it('ignores undeclared members, other versions, host events and attempt-started', () => {
    const initial = seed.initialState();
    const ignored: GraphEvent[] = [
      event('node-dispatched', { nodeId: 'ghost', position: 'team/ghost/1' }),
      { type: 'graph:node-dispatched', version: 2, payload: { nodeId: 'writer', position: 'team/writer/1' } },
      { type: 'host:node-dispatched', version: 1, payload: { nodeId: 'writer', position: 'team/writer/1' } },
      { type: 'graph:run-started', version: 1, payload: { definition: null } },
      event('node-attempt-started', { nodeId: 'writer', position: 'team/writer/1', attempt: 1, retrySafe: false }),
      event('node-dispatched', { nodeId: 1, position: 'team/writer/1' }),
      event('node-dispatched', null),
      event('node-dispatched', ['writer']),
    ];
    for (const next of ignored) expect(seed.reduce(initial, next)).toBe(initial);
  });
});

describe('pause, resume and failure', () => {
  const inFlight = seed.reduce(seed.initialState(), events.dispatched('writer', 1));

  it('pauses an in-flight member with its reason, and resumes it to in-flight', () => {
    const paused = seed.reduce(inFlight, events.paused('writer', 1, 'needs approval'));
    expect(member(paused, 'writer')).toMatchObject({ status: 'paused', pauseReason: 'needs approval', inFlight: 'team/writer/1' });
    const resumed = seed.reduce(paused, events.resumed('writer', 1));
    expect(member(resumed, 'writer')).toMatchObject({ status: 'in-flight', pauseReason: null, inFlight: 'team/writer/1' });
  });

  it('ignores a resume of a member that is not paused', () => {
    expect(seed.reduce(inFlight, events.resumed('writer', 1))).toBe(inFlight);
  });

  it('applies pause, resume, failure and completion only at the in-flight position', () => {
    for (const next of [events.paused('writer', 2), events.failed('writer', 2), events.completed('writer', 2, { summary: 's' }), events.paused('reviewer', 1)]) {
      expect(seed.reduce(inFlight, next)).toBe(inFlight);
    }
  });

  it('fails a member with the failure code and no position in flight', () => {
    const failed = seed.reduce(inFlight, events.failed('writer', 1, 'TIMEOUT'));
    expect(member(failed, 'writer')).toMatchObject({ status: 'failed', failureCode: 'TIMEOUT', inFlight: null });
  });

  it('ignores a pause without a string reason and a failure without a string code', () => {
    expect(seed.reduce(inFlight, event('node-paused', { nodeId: 'writer', position: 'team/writer/1', reason: 3, request: null }))).toBe(inFlight);
    expect(seed.reduce(inFlight, event('node-failed', { nodeId: 'writer', position: 'team/writer/1', code: null, message: 'm' }))).toBe(inFlight);
  });

  it('fails a paused member', () => {
    const state = fold(seed, [events.paused('writer', 1), events.failed('writer', 1, 'DENIED')], inFlight);
    expect(member(state, 'writer')).toMatchObject({ status: 'failed', failureCode: 'DENIED', pauseReason: null });
  });
});

describe('graph:node-completed', () => {
  const afterWriter = fold(seed, [events.dispatched('writer', 1), events.completed('writer', 1, writerAsks)]);

  it('makes the member idle with its result and saves each post as a message', () => {
    expect(member(afterWriter, 'writer')).toMatchObject({ status: 'idle', inFlight: null, turns: 1, result: writerAsks, queued: false });
    expect(teamMessages(afterWriter)).toEqual([
      { id: 'team/writer/1/0', roomId: 'review', text: 'Please review', mentions: ['reviewer'], sender: 'writer', position: 'team/writer/1' },
    ]);
  });

  it('queues each mentioned member and appends the message id to its triggers', () => {
    expect(member(afterWriter, 'reviewer')).toMatchObject({ status: 'idle', queued: true, triggers: ['team/writer/1/0'] });
  });

  it('numbers messages by post index and queues each distinct mention once per message', () => {
    const trio = compileTeam(team({ members: [{ id: 'a' }, { id: 'b', initialTurn: false }, { id: 'c', initialTurn: false }] }));
    const result = { summary: 's', posts: [post('all', 'one', ['b', 'b', 'c']), post('all', 'two', ['b']), post('all', 'three')] };
    const state = fold(trio, [events.dispatched('a', 1), events.completed('a', 1, result)]);
    expect(teamMessages(state).map((message) => message.id)).toEqual(['team/a/1/0', 'team/a/1/1', 'team/a/1/2']);
    expect(teamMessages(state)[0]!.mentions).toEqual(['b', 'b', 'c']);
    expect(member(state, 'b')).toMatchObject({ queued: true, triggers: ['team/a/1/0', 'team/a/1/1'] });
    expect(member(state, 'c')).toMatchObject({ queued: true, triggers: ['team/a/1/0'] });
    expect(member(state, 'a')).toMatchObject({ queued: false, triggers: [] });
  });

  it('queues a member that mentions itself', () => {
    const solo = compileTeam(team({ members: [{ id: 'solo' }] }));
    const state = fold(solo, [events.dispatched('solo', 1), events.completed('solo', 1, { summary: 's', posts: [post('all', 'later', ['solo'])] })]);
    expect(member(state, 'solo')).toMatchObject({ status: 'idle', queued: true, triggers: ['team/solo/1/0'] });
  });

  it('keeps a mention that arrived during the member own turn after that turn completes', () => {
    const duo = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }] }));
    const state = fold(duo, [
      events.dispatched('a', 1),
      events.dispatched('b', 1),
      events.completed('a', 1, { summary: 'a', posts: [post('all', 'b, look', ['b'])] }),
    ]);
    expect(member(state, 'b')).toMatchObject({ status: 'in-flight', queued: true, triggers: ['team/a/1/0'] });
    const done = duo.reduce(state, events.completed('b', 1, { summary: 'b' }));
    expect(member(done, 'b')).toMatchObject({ status: 'idle', queued: true, triggers: ['team/a/1/0'], result: { summary: 'b' } });
  });

  it('fails the member with RESULT_INVALID on an invalid result, keeping its earlier result and adding no message', () => {
    const second = fold(seed, [
      events.dispatched('reviewer', 1),
      events.completed('reviewer', 1, reviewerReplies),
      events.dispatched('writer', 2),
      events.completed('writer', 2, { summary: 'bad', posts: [post('review', 'fine'), post('review', 'x', ['ghost'])] }),
    ], afterWriter);
    expect(member(second, 'writer')).toMatchObject({ status: 'failed', failureCode: 'RESULT_INVALID', result: writerAsks, inFlight: null });
    expect(teamMessages(second).map((message) => message.id)).toEqual(['team/writer/1/0', 'team/reviewer/1/0']);
    expect(member(second, 'reviewer').queued).toBe(false);
  });

  it('accepts exactly the results validateNodeResult accepts, frozen or not, and keeps a deep-frozen copy of each', () => {
    const anything = fc.anything({ withMap: true, withDate: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: true });
    const aPost = fc.record({
      roomId: fc.oneof(fc.constantFrom('review', 'ghost'), anything),
      text: fc.oneof(fc.string(), anything),
      mentions: fc.oneof(fc.array(fc.constantFrom('writer', 'reviewer', 'ghost')), anything),
    });
    const result = fc.oneof(
      anything,
      fc.record({ summary: fc.oneof(fc.string(), anything), data: fc.oneof(fc.jsonValue(), anything), posts: fc.oneof(fc.array(aPost, { maxLength: 3 }), anything) }, { requiredKeys: ['summary'] }),
    );
    const inFlight = seed.reduce(seed.initialState(), events.dispatched('writer', 1));
    fc.assert(
      fc.property(result, fc.boolean(), (value, frozen) => {
        if (frozen && isJson(value)) value = copyFrozenJson(value);
        const state = seed.reduce(inFlight, events.completed('writer', 1, value));
        const valid = seed.validateNodeResult!('writer', value) === null;
        expect(member(state, 'writer').status).toBe(valid ? 'idle' : 'failed');
        if (valid) {
          expect(member(state, 'writer').result).toEqual(value);
          expect(isJson(member(state, 'writer').result)).toBe(true);
          expect(Object.isFrozen(member(state, 'writer').result)).toBe(true);
        } else {
          expect(member(state, 'writer').failureCode).toBe('RESULT_INVALID');
        }
      }),
      { numRuns: 2_000 },
    );
    let deep: Json = 'x';
    for (let level = 0; level < 252; level++) deep = [deep];
    for (const data of [deep, [deep], [[deep]]]) {
      const value = { summary: 'deep', data };
      const state = seed.reduce(inFlight, events.completed('writer', 1, value));
      expect(member(state, 'writer').status).toBe(seed.validateNodeResult!('writer', value) === null ? 'idle' : 'failed');
    }
  });

  it('treats a completion without a result as an invalid result', () => {
    const inFlight = seed.reduce(seed.initialState(), events.dispatched('writer', 1));
    const state = seed.reduce(inFlight, event('node-completed', { nodeId: 'writer', position: 'team/writer/1' }));
    expect(member(state, 'writer')).toMatchObject({ status: 'failed', failureCode: 'RESULT_INVALID' });
  });

  it('delivers nothing for a duplicate, stale or after-failure completion', () => {
    expect(seed.reduce(afterWriter, events.completed('writer', 1, writerAsks))).toBe(afterWriter);
    const later = fold(seed, [events.dispatched('reviewer', 1), events.completed('reviewer', 1, reviewerReplies), events.dispatched('writer', 2)], afterWriter);
    expect(seed.reduce(later, events.completed('writer', 1, writerAsks))).toBe(later);
    const failed = seed.reduce(later, events.failed('writer', 2));
    expect(seed.reduce(failed, events.completed('writer', 2, { summary: 'late', posts: [post('review', 'late', ['reviewer'])] }))).toBe(failed);
  });

  it('ignores a completion for a paused member until it is resumed', () => {
    const paused = fold(seed, [events.dispatched('writer', 1), events.paused('writer', 1)]);
    expect(seed.reduce(paused, events.completed('writer', 1, writerAsks))).toBe(paused);
    const resumed = fold(seed, [events.resumed('writer', 1), events.completed('writer', 1, writerAsks)], paused);
    expect(teamMessages(resumed)).toHaveLength(1);
  });

  it('keeps saved results and messages even if the event value is changed afterwards', () => {
    const result = { summary: 'draft', posts: [post('review', 'Please review', ['reviewer'])] };
    const state = fold(seed, [events.dispatched('writer', 1), events.completed('writer', 1, result)]);
    result.summary = 'changed';
    result.posts[0]!.text = 'changed';
    result.posts[0]!.mentions.push('writer');
    expect(member(state, 'writer').result).toEqual(writerAsks);
    expect(teamMessages(state)[0]).toMatchObject({ text: 'Please review', mentions: ['reviewer'] });
    expect(Object.isFrozen(teamMessages(state)[0])).toBe(true);
    expect(Object.isFrozen(member(state, 'writer').result)).toBe(true);
  });
});
