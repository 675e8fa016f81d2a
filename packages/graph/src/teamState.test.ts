import { describe, expect, it } from 'vitest';
import { isGraphValidationError, teamMemberStates, teamMessages, teamPosition } from './index.js';
import type { TeamState } from './index.js';
import { compileTeam, events, fold, post, team } from './__fixtures__/teamFixtures.js';

const graph = compileTeam(
  team({
    members: [{ id: 'a' }, { id: 'b', initialTurn: false }],
    rooms: [
      { id: 'one', members: ['a', 'b'] },
      { id: 'two', members: ['a'] },
    ],
  }),
);

function texts(state: TeamState, roomId?: string): string[] {
  return teamMessages(state, roomId).map((message) => message.text);
}

describe('teamPosition', () => {
  it('is team/<memberId>/<turn>', () => {
    expect(teamPosition('writer', 1)).toBe('team/writer/1');
    expect(teamPosition('a b/c', 12)).toBe('team/a b/c/12');
  });
});

describe('teamMessages and teamMemberStates', () => {
  const state = fold(graph, [
    events.dispatched('a', 1),
    events.completed('a', 1, { summary: 's', posts: [post('one', '1'), post('two', '2'), post('one', '3', ['b'])] }),
  ]);

  it('lists all messages, or one room messages, in saved order', () => {
    expect(texts(state)).toEqual(['1', '2', '3']);
    expect(texts(state, 'one')).toEqual(['1', '3']);
    expect(texts(state, 'two')).toEqual(['2']);
  });

  it('throws INVALID_TEAM for an undeclared room', () => {
    expect(() => teamMessages(state, 'three')).toThrow(expect.objectContaining({ code: 'INVALID_TEAM' }) as Error);
    try {
      teamMessages(state, 'three');
    } catch (error) {
      expect(isGraphValidationError(error, 'INVALID_TEAM')).toBe(true);
    }
  });

  it('lists members in declaration order, frozen', () => {
    expect(teamMemberStates(state).map((member) => member.id)).toEqual(['a', 'b']);
    expect(Object.isFrozen(teamMemberStates(state))).toBe(true);
    expect(Object.isFrozen(teamMemberStates(state)[1]!.triggers)).toBe(true);
  });

  it('returns copies: changing a returned list changes nothing', () => {
    const list = teamMessages(state) as unknown[];
    list.length = 0;
    expect(texts(state)).toEqual(['1', '2', '3']);
  });
});

describe('older states stay valid', () => {
  it('keeps each state view when later states append messages', () => {
    const s1 = fold(graph, [events.dispatched('a', 1), events.completed('a', 1, { summary: 's', posts: [post('one', 'first', ['b'])] })]);
    const s2 = fold(graph, [events.dispatched('b', 1), events.completed('b', 1, { summary: 's', posts: [post('one', 'second', ['a'])] })], s1);
    expect(texts(s1)).toEqual(['first']);
    expect(texts(s1, 'one')).toEqual(['first']);
    expect(texts(s2)).toEqual(['first', 'second']);
  });

  it('branches correctly when an older state is reduced again', () => {
    const base = fold(graph, [events.dispatched('a', 1), events.completed('a', 1, { summary: 's', posts: [post('one', 'base', ['b'])] })]);
    const dispatched = graph.reduce(base, events.dispatched('b', 1));
    const left = graph.reduce(dispatched, events.completed('b', 1, { summary: 'l', posts: [post('one', 'left', ['a'])] }));
    const right = graph.reduce(dispatched, events.completed('b', 1, { summary: 'r', posts: [post('one', 'right', ['b'])] }));
    const leftAgain = graph.reduce(left, events.dispatched('a', 2));
    const leftMore = graph.reduce(leftAgain, events.completed('a', 2, { summary: 'l2', posts: [post('two', 'left 2')] }));
    const rightMore = graph.reduce(graph.reduce(right, events.dispatched('b', 2)), events.completed('b', 2, { summary: 'r2', posts: [post('one', 'right 2')] }));

    expect(texts(base)).toEqual(['base']);
    expect(texts(left)).toEqual(['base', 'left']);
    expect(texts(right)).toEqual(['base', 'right']);
    expect(texts(leftMore)).toEqual(['base', 'left', 'left 2']);
    expect(texts(rightMore)).toEqual(['base', 'right', 'right 2']);
    expect(texts(rightMore, 'one')).toEqual(['base', 'right', 'right 2']);
    expect(texts(leftMore, 'two')).toEqual(['left 2']);
    expect(texts(rightMore, 'two')).toEqual([]);
    expect(teamMemberStates(right)[1]!.result).toEqual({ summary: 'r', posts: [post('one', 'right', ['b'])] });
  });

  it('finds triggers in the right branch when a branch reuses a message id', () => {
    const trio = compileTeam(team({ members: [{ id: 'a' }, { id: 'b', initialTurn: false }, { id: 'c', initialTurn: false }], tailMessages: 1 }));
    const dispatched = trio.reduce(trio.initialState(), events.dispatched('a', 1));
    const toB = trio.reduce(dispatched, events.completed('a', 1, { summary: 's', posts: [post('all', 'for b', ['b']), post('all', 'filler')] }));
    const toC = trio.reduce(dispatched, events.completed('a', 1, { summary: 's', posts: [post('all', 'for c', ['c']), post('all', 'filler')] }));
    const inputText = (state: TeamState) =>
      trio.decide(state).flatMap((command) => (command.kind === 'dispatch' ? [(command.input as { messages: { text: string }[] }).messages.map((m) => m.text)] : []));
    expect(inputText(toB)).toEqual([['for b', 'filler']]);
    expect(inputText(toC)).toEqual([['for c', 'filler']]);
  });
});

describe('the message log keeps messages as columns and builds them when asked', () => {
  // Member ids may hold slashes, and a turn may post many messages: ids are `<position>/<postIndex>`.
  const slashed = compileTeam(team({ members: [{ id: 'a/1' }, { id: 'a', initialTurn: false }, { id: 'b/2/3', initialTurn: false }], tailMessages: 1 }));
  const state = fold(slashed, [
    events.dispatched('a/1', 1),
    events.completed('a/1', 1, { summary: 's', posts: Array.from({ length: 40 }, (_, i) => post('all', `m${i}`, i === 3 ? ['b/2/3'] : i === 12 ? ['a', 'b/2/3'] : [])) }),
  ]);

  it('writes each message whole: id, room, text, mentions, sender and position, frozen', () => {
    const messages = teamMessages(state);
    expect(messages).toHaveLength(40);
    expect(messages[12]).toEqual({ id: 'team/a/1/1/12', roomId: 'all', text: 'm12', mentions: ['a', 'b/2/3'], sender: 'a/1', position: 'team/a/1/1' });
    expect(messages.map((message) => message.id)).toEqual(Array.from({ length: 40 }, (_, i) => `team/a/1/1/${i}`));
    expect(messages.every((message) => Object.isFrozen(message) && Object.isFrozen(message.mentions))).toBe(true);
    // More messages than the log keeps built: building again gives equal messages.
    expect(teamMessages(state)).toEqual(messages);
    expect(teamMessages(state, 'all')).toEqual(messages);
  });

  it('finds each trigger by its id, for a sender whose id has slashes and for one that is a prefix of another', () => {
    const inputs = Object.fromEntries(
      slashed.decide(state).flatMap((command) => (command.kind === 'dispatch' ? [[command.nodeId, command.input as { messages: { id: string }[]; triggers: string[] }]] : [])),
    );
    expect(inputs['a']!.triggers).toEqual(['team/a/1/1/12']);
    expect(inputs['a']!.messages.map((message) => message.id)).toEqual(['team/a/1/1/12', 'team/a/1/1/39']);
    expect(inputs['b/2/3']!.triggers).toEqual(['team/a/1/1/3', 'team/a/1/1/12']);
    expect(inputs['b/2/3']!.messages.map((message) => message.id)).toEqual(['team/a/1/1/3', 'team/a/1/1/12', 'team/a/1/1/39']);
  });

  it('gives each message its own mentions, in order, where short lists are shared between messages', () => {
    const lists = [['a'], ['a'], ['b/2/3', 'a'], ['a', 'b/2/3'], [], ['a', 'a'], [], ['a', 'b/2/3', 'a'], ['b/2/3', 'a']];
    const mentioned = fold(slashed, [
      events.dispatched('a/1', 1),
      events.completed('a/1', 1, { summary: 's', posts: lists.map((mentions, i) => post('all', `p${i}`, mentions)) }),
    ]);
    const messages = teamMessages(mentioned);
    expect(messages.map((message) => message.mentions)).toEqual(lists);
    expect(messages.every((message) => Object.isFrozen(message.mentions))).toBe(true);
    expect(messages[1]!.mentions).toBe(messages[0]!.mentions);
    expect(messages[8]!.mentions).toBe(messages[2]!.mentions);
  });

  it('answers no index for an id that only parses like one of its messages', () => {
    const { log } = state;
    expect(log.indexOf('team/a/1/1/12')).toBe(12);
    for (const id of ['team/a/1/1/40', 'team/a/1/1/012', 'team/a/1/01/1', 'team/a/1/1/-1', 'team/a/1/1/', 'team/a/1/1/1.0', 'team/a/1/2/0', 'team/a/1/0', 'team/b/2/3/1/0', 'team/x/1/0', 'other/a/1/1/0', 'team//1/0', 'team/a/1/1/1e1']) {
      expect(log.indexOf(id)).toBeUndefined();
    }
  });

  it('keeps an older state its own messages when a branch copies the log', () => {
    const older = fold(slashed, [events.dispatched('a/1', 1), events.completed('a/1', 1, { summary: 's', posts: [post('all', 'first', ['a'])] })]);
    const next = fold(slashed, [events.dispatched('a', 1), events.completed('a', 1, { summary: 's', posts: [post('all', 'second', ['a/1'])] })], older);
    // `older` again, after `next` appended to the shared log: the branch copies the log up to `older`.
    const branch = fold(slashed, [events.dispatched('a', 1), events.completed('a', 1, { summary: 's', posts: [post('all', 'other', [])] })], older);
    expect(teamMessages(next).map((message) => message.text)).toEqual(['first', 'second']);
    expect(teamMessages(branch).map((message) => [message.id, message.text])).toEqual([
      ['team/a/1/1/0', 'first'],
      ['team/a/1/0', 'other'],
    ]);
    expect(branch.log.indexOf('team/a/1/0')).toBe(1);
    expect(next.log.indexOf('team/a/1/0')).toBe(1);
    expect(branch.log.indexOf('team/a/1/1/0')).toBe(0);
  });
});

describe('a long message log', () => {
  it('keeps, finds and branches messages past 4,096', () => {
    const pair = compileTeam(team({ members: [{ id: 'a' }, { id: 'b', initialTurn: false }], tailMessages: 2 }));
    const posts = Array.from({ length: 4100 }, (_, i) => post('all', `m${i}`, i === 4098 ? ['b'] : []));
    const state = fold(pair, [events.dispatched('a', 1), events.completed('a', 1, { summary: 's', posts })]);
    expect(teamMessages(state).map((message) => message.text)).toEqual(posts.map((entry) => entry.text));
    expect(state.log.indexOf('team/a/1/4098')).toBe(4098);
    const [command] = pair.decide(state);
    expect(command).toMatchObject({ kind: 'dispatch', nodeId: 'b' });
    const input = (command?.kind === 'dispatch' ? command.input : null) as { messages: { id: string }[]; triggers: string[] };
    expect(input.triggers).toEqual(['team/a/1/4098']);
    expect(input.messages.map((message) => message.id)).toEqual(['team/a/1/4098', 'team/a/1/4099']);
    // Two branches from one state of a long log: each keeps its own next message.
    const dispatched = pair.reduce(state, events.dispatched('b', 1));
    const left = pair.reduce(dispatched, events.completed('b', 1, { summary: 'l', posts: [post('all', 'left')] }));
    const right = pair.reduce(dispatched, events.completed('b', 1, { summary: 'r', posts: [post('all', 'right')] }));
    expect(teamMessages(left).slice(4099).map((message) => [message.id, message.text])).toEqual([['team/a/1/4099', 'm4099'], ['team/b/1/0', 'left']]);
    expect(teamMessages(right).slice(4099).map((message) => [message.id, message.text])).toEqual([['team/a/1/4099', 'm4099'], ['team/b/1/0', 'right']]);
    expect(teamMessages(right, 'all')).toHaveLength(4101);
  });
});
