import { describe, expect, it } from 'vitest';
import { TeamFailureCodes, teamMemberStates } from './index.js';
import type { DispatchCommand, GraphCommand, TeamDispatchInput, TeamState } from './index.js';
import { compileTeam, dispatchBatch, events, fold, post, seedTeam, team } from './__fixtures__/teamFixtures.js';

function dispatches(commands: GraphCommand[]): DispatchCommand[] {
  return commands.filter((command): command is DispatchCommand => command.kind === 'dispatch');
}

function inputOf(command: GraphCommand | undefined): TeamDispatchInput {
  if (command?.kind !== 'dispatch') throw new Error(`expected a dispatch, got ${JSON.stringify(command)}`);
  return command.input as unknown as TeamDispatchInput;
}

describe('decide: the seed conversation', () => {
  it('dispatches writer, reviewer, writer, then completes with every member result', () => {
    const graph = compileTeam(seedTeam());
    const order: string[] = [];
    let state = graph.initialState();

    let batch = dispatchBatch(graph, state);
    expect(batch.dispatched.map((command) => command.position)).toEqual(['team/writer/1']);
    expect(batch.dispatched[0]!.input).toEqual({
      task: 'Write the release notes.',
      role: 'writer',
      brief: 'Draft the notes and ask for a review.',
      result: null,
      messages: [],
      turn: 1,
      triggers: [],
    });
    order.push(...batch.dispatched.map((command) => command.nodeId));
    const draft = { summary: 'draft', posts: [post('review', 'Please review the draft.', ['reviewer'])] };
    state = graph.reduce(batch.state, events.completed('writer', 1, draft));

    batch = dispatchBatch(graph, state);
    order.push(...batch.dispatched.map((command) => command.nodeId));
    expect(inputOf(batch.dispatched[0])).toEqual({
      task: 'Write the release notes.',
      role: 'reviewer',
      brief: 'Review the draft.',
      result: null,
      messages: [{ id: 'team/writer/1/0', roomId: 'review', text: 'Please review the draft.', mentions: ['reviewer'], sender: 'writer', position: 'team/writer/1' }],
      turn: 1,
      triggers: ['team/writer/1/0'],
    });
    const reply = { summary: 'reviewed', posts: [post('review', 'Add the upgrade notes.', ['writer'])] };
    state = graph.reduce(batch.state, events.completed('reviewer', 1, reply));

    batch = dispatchBatch(graph, state);
    order.push(...batch.dispatched.map((command) => command.nodeId));
    const writerInput = inputOf(batch.dispatched[0]);
    expect(batch.dispatched[0]!.position).toBe('team/writer/2');
    expect(writerInput.result).toEqual(draft);
    expect(writerInput.messages.map((message) => message.id)).toEqual(['team/writer/1/0', 'team/reviewer/1/0']);
    expect(writerInput.turn).toBe(2);
    expect(writerInput.triggers).toEqual(['team/reviewer/1/0']);
    const final = { summary: 'Final notes. Reply was: Add the upgrade notes.' };
    state = graph.reduce(batch.state, events.completed('writer', 2, final));

    expect(order).toEqual(['writer', 'reviewer', 'writer']);
    expect(graph.decide(state)).toEqual([
      {
        kind: 'complete',
        output: {
          task: 'Write the release notes.',
          agents: [
            { name: 'writer', role: 'writer', result: final },
            { name: 'reviewer', role: 'reviewer', result: reply },
          ],
        },
      },
    ]);
  });

  it('completes with result null for a member that never had a turn', () => {
    const graph = compileTeam(seedTeam());
    const state = fold(graph, [events.dispatched('writer', 1), events.completed('writer', 1, { summary: 'alone' })]);
    expect(graph.decide(state)).toEqual([
      {
        kind: 'complete',
        output: {
          task: 'Write the release notes.',
          agents: [
            { name: 'writer', role: 'writer', result: { summary: 'alone' } },
            { name: 'reviewer', role: 'reviewer', result: null },
          ],
        },
      },
    ]);
  });
});

describe('decide: batches', () => {
  const trio = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], globalConcurrency: 2 }));

  it('dispatches the first globalConcurrency queued members in declaration order', () => {
    expect(dispatches(trio.decide(trio.initialState())).map((command) => command.position)).toEqual(['team/a/1', 'team/b/1']);
  });

  it('awaits the whole batch even when a concurrency slot frees', () => {
    let state = fold(trio, [events.dispatched('a', 1), events.dispatched('b', 1), events.completed('a', 1, { summary: 'a' })]);
    expect(trio.decide(state)).toEqual([]);
    state = trio.reduce(state, events.completed('b', 1, { summary: 'b' }));
    expect(dispatches(trio.decide(state)).map((command) => command.position)).toEqual(['team/c/1']);
  });

  it('returns [] while any member is in flight, even with a failure already recorded', () => {
    const state = fold(trio, [events.dispatched('a', 1), events.dispatched('b', 1), events.failed('a', 1)]);
    expect(trio.decide(state)).toEqual([]);
  });

  it('queues a fresh later turn for a mention that arrives during an active turn', () => {
    const duo = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }] }));
    let state = fold(duo, [
      events.dispatched('a', 1),
      events.dispatched('b', 1),
      events.completed('a', 1, { summary: 'a', posts: [post('all', 'b, one more thing', ['b'])] }),
    ]);
    expect(duo.decide(state)).toEqual([]);
    state = duo.reduce(state, events.completed('b', 1, { summary: 'b' }));
    const [next, ...rest] = duo.decide(state);
    expect(rest).toEqual([]);
    expect(next).toMatchObject({ kind: 'dispatch', nodeId: 'b', position: 'team/b/2' });
    expect(inputOf(next).messages.map((message) => message.id)).toEqual(['team/a/1/0']);
    expect(inputOf(next).result).toEqual({ summary: 'b' });
  });
});

describe('decide: outcomes', () => {
  const duo = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }, { id: 'c', initialTurn: false }] }));
  const bothRunning = fold(duo, [events.dispatched('a', 1), events.dispatched('b', 1)]);

  it('fails with TEAM_NODE_FAILED over a pause, whichever settles first', () => {
    const pauseFirst = fold(duo, [events.paused('a', 1, 'approve?'), events.failed('b', 1, 'TIMEOUT')], bothRunning);
    const failFirst = fold(duo, [events.failed('b', 1, 'TIMEOUT'), events.paused('a', 1, 'approve?')], bothRunning);
    for (const state of [pauseFirst, failFirst]) {
      expect(duo.decide(state)).toEqual([{ kind: 'fail', code: 'TEAM_NODE_FAILED', message: 'Member "b" failed (TIMEOUT).' }]);
    }
  });

  it('names every failed member in declaration order', () => {
    const state = fold(duo, [events.failed('b', 1, 'TIMEOUT'), events.completed('a', 1, { summary: 1 })], bothRunning);
    const [command] = duo.decide(state);
    expect(command).toEqual({ kind: 'fail', code: TeamFailureCodes.TEAM_NODE_FAILED, message: 'Member "a" failed (RESULT_INVALID). Member "b" failed (TIMEOUT).' });
  });

  it('pauses with the first paused member reason in declaration order', () => {
    const state = fold(duo, [events.paused('b', 1, 'b waits'), events.paused('a', 1, 'a waits')], bothRunning);
    expect(duo.decide(state)).toEqual([{ kind: 'pause', reason: 'a waits' }]);
    const resumed = fold(duo, [events.resumed('a', 1)], state);
    expect(duo.decide(resumed)).toEqual([]);
  });

  it('fails with TEAM_TURN_LIMIT when a reply requests a third writer turn with maxTurnsPerMember 2', () => {
    const graph = compileTeam(seedTeam());
    const ask = { summary: 'ask', posts: [post('review', 'review?', ['reviewer'])] };
    const answer = { summary: 'answer', posts: [post('review', 'again', ['writer'])] };
    const state = fold(graph, [
      events.dispatched('writer', 1),
      events.completed('writer', 1, ask),
      events.dispatched('reviewer', 1),
      events.completed('reviewer', 1, answer),
      events.dispatched('writer', 2),
      events.completed('writer', 2, ask),
      events.dispatched('reviewer', 2),
      events.completed('reviewer', 2, answer),
    ]);
    expect(teamMemberStates(state)[0]).toMatchObject({ turns: 2, queued: true });
    expect(graph.decide(state)).toEqual([{ kind: 'fail', code: 'TEAM_TURN_LIMIT', message: 'Member "writer" reached maxTurnsPerMember.' }]);
  });

  it('checks the turn limit before dispatching anyone else', () => {
    const graph = compileTeam(team({ members: [{ id: 'a' }, { id: 'b', initialTurn: false }], maxTurnsPerMember: 1 }));
    const state = fold(graph, [events.dispatched('a', 1), events.completed('a', 1, { summary: 's', posts: [post('all', 'x', ['a', 'b'])] })]);
    expect(graph.decide(state)).toEqual([{ kind: 'fail', code: 'TEAM_TURN_LIMIT', message: 'Member "a" reached maxTurnsPerMember.' }]);
  });
});

describe('decide: dispatch input', () => {
  it('gives each turn its number and the triggers in saved order, derived from the record alone', () => {
    const graph = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], globalConcurrency: 3, maxTurnsPerMember: 3, tailMessages: 5 }));
    let state: TeamState = graph.initialState();
    const first = dispatches(graph.decide(state));
    expect(first.map((command) => [command.nodeId, inputOf(command).turn, inputOf(command).triggers])).toEqual([
      ['a', 1, []],
      ['b', 1, []],
      ['c', 1, []],
    ]);
    // b completes before a, so b's mention of c is saved first even though a is declared first.
    state = fold(graph, [events.dispatched('a', 1), events.dispatched('b', 1), events.dispatched('c', 1)], state);
    state = graph.reduce(state, events.completed('b', 1, { summary: 'b', posts: [post('all', 'from b', ['c'])] }));
    state = graph.reduce(state, events.completed('a', 1, { summary: 'a', posts: [post('all', 'from a', ['c', 'c'])] }));
    state = graph.reduce(state, events.completed('c', 1, { summary: 'c' }));
    const second = dispatches(graph.decide(state));
    expect(second.map((command) => command.nodeId)).toEqual(['c']);
    expect(inputOf(second[0]).turn).toBe(2);
    expect(inputOf(second[0]).triggers).toEqual(['team/b/1/0', 'team/a/1/0']);
    // The same state folded again from the record gives the same input: nothing extra is stored.
    const replayed = fold(
      graph,
      [
        events.dispatched('a', 1),
        events.dispatched('b', 1),
        events.dispatched('c', 1),
        events.completed('b', 1, { summary: 'b', posts: [post('all', 'from b', ['c'])] }),
        events.completed('a', 1, { summary: 'a', posts: [post('all', 'from a', ['c', 'c'])] }),
        events.completed('c', 1, { summary: 'c' }),
      ],
      graph.initialState(),
    );
    expect(graph.decide(replayed)).toEqual(graph.decide(state));
  });

  it('collapses several pending mentions into one turn that keeps every trigger, even one older than the tail', () => {
    const graph = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }, { id: 'c', initialTurn: false }], globalConcurrency: 1, tailMessages: 1 }));
    let state: TeamState = graph.initialState();
    state = fold(graph, [events.dispatched('a', 1), events.completed('a', 1, { summary: 'a', posts: [post('all', 'c: first', ['c'])] })], state);
    expect(dispatches(graph.decide(state)).map((command) => command.nodeId)).toEqual(['b']);
    const bPosts = [post('all', 'chatter'), post('all', 'c: second', ['c']), post('all', 'more chatter')];
    state = fold(graph, [events.dispatched('b', 1), events.completed('b', 1, { summary: 'b', posts: bPosts })], state);
    expect(teamMemberStates(state)[2]).toMatchObject({ queued: true, triggers: ['team/a/1/0', 'team/b/1/1'] });

    const commands = graph.decide(state);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({ kind: 'dispatch', nodeId: 'c', position: 'team/c/1' });
    expect(inputOf(commands[0]).messages.map((message) => message.id)).toEqual(['team/a/1/0', 'team/b/1/1', 'team/b/1/2']);
    expect(inputOf(commands[0]).turn).toBe(1);
    expect(inputOf(commands[0]).triggers).toEqual(['team/a/1/0', 'team/b/1/1']);

    state = graph.reduce(state, events.dispatched('c', 1));
    expect(teamMemberStates(state)[2]).toMatchObject({ turns: 1, queued: false, triggers: [] });
  });

  it('holds many messages, tail and triggers overlapping, once each in saved order', () => {
    const graph = compileTeam(team({ members: [{ id: 'a' }, { id: 'b', initialTurn: false }], globalConcurrency: 1, tailMessages: 30 }));
    const posts = Array.from({ length: 40 }, (_, index) => post('all', `post ${index}`, index % 3 === 0 ? ['b'] : []));
    const state = fold(graph, [events.dispatched('a', 1), events.completed('a', 1, { summary: 'a', posts })]);
    const input = inputOf(graph.decide(state)[0]);
    const triggered = posts.flatMap((_, index) => (index % 3 === 0 ? [`team/a/1/${index}`] : []));
    expect(input.triggers).toEqual(triggered);
    const tail = posts.map((_, index) => index).filter((index) => index >= 10 || index % 3 === 0);
    expect(input.messages.map((message) => message.id)).toEqual(tail.map((index) => `team/a/1/${index}`));
  });

  it('holds each room last tailMessages plus triggers, once each, in saved order', () => {
    const graph = compileTeam(
      team({
        members: [{ id: 'a' }, { id: 'b', initialTurn: false }],
        rooms: [
          { id: 'one', members: ['a', 'b'] },
          { id: 'two', members: ['a', 'b'] },
        ],
        tailMessages: 2,
      }),
    );
    const posts = [post('one', '1'), post('two', '2', ['b']), post('one', '3'), post('one', '4', ['b']), post('two', '5'), post('one', '6')];
    const state = fold(graph, [events.dispatched('a', 1), events.completed('a', 1, { summary: 'a', posts })]);
    const [command] = graph.decide(state);
    expect(command).toMatchObject({ nodeId: 'b' });
    expect(inputOf(command).messages.map((message) => message.text)).toEqual(['2', '4', '5', '6']);
  });

  it('shows an outsider no private room text and no other member result', () => {
    const graph = compileTeam(
      team({
        members: [{ id: 'a' }, { id: 'b', initialTurn: false }, { id: 'outsider', initialTurn: false }],
        rooms: [
          { id: 'private', members: ['a', 'b'] },
          { id: 'public', members: ['a', 'b', 'outsider'] },
        ],
      }),
    );
    const secret = { summary: 'secret plan', data: { key: 'hunter2' }, posts: [post('private', 'the secret is hunter2', ['b']), post('public', 'hello all', ['outsider'])] };
    const state = fold(graph, [events.dispatched('a', 1), events.completed('a', 1, secret)]);
    const commands = dispatches(graph.decide(state));
    expect(commands.map((command) => command.nodeId)).toEqual(['b', 'outsider']);
    const outsider = inputOf(commands[1]);
    expect(outsider.result).toBeNull();
    expect(outsider.messages.map((message) => message.roomId)).toEqual(['public']);
    expect(JSON.stringify(outsider)).not.toContain('hunter2');
    expect(JSON.stringify(outsider)).not.toContain('secret plan');
    expect(inputOf(commands[0]).messages.map((message) => message.roomId)).toEqual(['private', 'public']);
  });

  it('gives a member without rooms no messages', () => {
    const graph = compileTeam(team({ members: [{ id: 'a' }, { id: 'loner' }], rooms: [{ id: 'r', members: ['a'] }] }));
    const state = fold(graph, [events.dispatched('a', 1), events.completed('a', 1, { summary: 'a', posts: [post('r', 'hi')] })]);
    const loner = dispatches(graph.decide(state));
    expect(loner.map((command) => command.nodeId)).toEqual(['loner']);
    expect(inputOf(loner[0]).messages).toEqual([]);
  });
});

describe('decide: a team without members', () => {
  it('completes at once with no agents', () => {
    const graph = compileTeam(team({ members: [], rooms: null }));
    expect(graph.decide(graph.initialState())).toEqual([{ kind: 'complete', output: { task: 'task', agents: [] } }]);
    expect((graph.describe() as { dispatch: unknown }).dispatch).toEqual({ min: 0, max: 0 });
  });
});
