import { isJson } from '@roundtable/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { teamMemberStates, teamMessages, teamPosition } from './index.js';
import type { CompiledGraph, GraphEvent, TeamDefinition, TeamDispatchInput, TeamMessage, TeamState } from './index.js';
import { isSavedMessage } from './savedMessageMark.js';
import { teamDispatchInputIsJson } from './teamDecide.js';
import { compileTeam, event, events } from './__fixtures__/teamFixtures.js';

const MEMBER_POOL = ['m0', 'm1', 'm2', 'm3', 'm4'];

const teamArbitrary = fc
  .record({
    memberCount: fc.integer({ min: 1, max: 5 }),
    initialTurns: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
    rooms: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 5 }), { maxLength: 3 }),
    communicates: fc.boolean(),
    maxTurnsPerMember: fc.integer({ min: 1, max: 4 }),
    globalConcurrency: fc.integer({ min: 1, max: 3 }),
    tailMessages: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ memberCount, initialTurns, rooms, communicates, ...limits }): TeamDefinition => {
    const members = MEMBER_POOL.slice(0, memberCount);
    return {
      id: 'random-team',
      definitionVersion: 1,
      data: {
        task: 'random',
        globalConcurrency: limits.globalConcurrency,
        maxTurnsPerMember: limits.maxTurnsPerMember,
        ...(communicates
          ? {
              communication: {
                rooms: rooms.map((indexes, index) => ({ id: `room-${index}`, members: indexes.filter((i) => i < memberCount).map((i) => members[i]!) })),
                tailMessages: limits.tailMessages,
              },
            }
          : {}),
      },
      nodes: members.map((id, index) => ({ id, data: { role: `role-${id}`, brief: `brief-${id}`, initialTurn: initialTurns[index]! } })),
      edges: [],
    };
  });

interface Conversation {
  graph: CompiledGraph<TeamState>;
  definition: TeamDefinition;
  log: GraphEvent[];
  /** states[i] is the state after the first i events. */
  states: TeamState[];
  expectedMessages: TeamMessage[];
  dispatchCounts: Map<string, number>;
  /** Each dispatch input decide produced, with the index in `log` of its dispatch event. */
  inputs: { nodeId: string; input: TeamDispatchInput; logIndex: number }[];
}

/** Drives a random conversation with decide, consuming `choices` as its source of randomness. */
function converse(definition: TeamDefinition, choices: number[], from?: { graph: CompiledGraph<TeamState>; state: TeamState }): Conversation {
  const graph = from?.graph ?? compileTeam(definition);
  const rooms = definition.data.communication?.rooms ?? [];
  let cursor = 0;
  const pick = (n: number) => (n <= 0 ? 0 : choices[cursor++ % choices.length]! % n);
  const conversation: Conversation = {
    graph,
    definition,
    log: [],
    states: [from?.state ?? graph.initialState()],
    expectedMessages: [],
    dispatchCounts: new Map(),
    inputs: [],
  };
  let state = conversation.states[0]!;
  const apply = (next: GraphEvent) => {
    state = graph.reduce(state, next);
    conversation.log.push(next);
    conversation.states.push(state);
  };

  const randomResult = (memberId: string) => {
    const mine = rooms.filter((room) => room.members.includes(memberId));
    const roll = pick(10);
    if (roll === 0) return { summary: 1 };
    if (roll === 1 && rooms.length > 0) return { summary: 'sneaky', posts: [{ roomId: rooms[pick(rooms.length)]!.id, text: 'x', mentions: [MEMBER_POOL[pick(5)]!] }] };
    if (mine.length === 0 || definition.data.communication === undefined) return { summary: `plain ${cursor}` };
    const posts = Array.from({ length: pick(4) }, () => {
      const room = mine[pick(mine.length)]!;
      const mentions = Array.from({ length: pick(3) }, () => room.members[pick(room.members.length)]!);
      return { roomId: room.id, text: `text ${cursor}`, mentions };
    });
    return { summary: `with posts ${cursor}`, posts };
  };

  const settleOne = () => {
    const open = teamMemberStates(state).filter((member) => member.status === 'in-flight' || member.status === 'paused');
    const member = open[pick(open.length)]!;
    const turn = member.turns;
    if (member.status === 'paused') {
      apply(pick(5) === 0 ? events.completed(member.id, turn, { summary: 'too early' }) : events.resumed(member.id, turn));
      return;
    }
    const roll = pick(20);
    if (roll === 0) apply(events.failed(member.id, turn));
    else if (roll === 1) apply(events.paused(member.id, turn, `reason ${cursor}`));
    else if (roll === 2) apply(events.completed(member.id, turn - 1, { summary: 'stale' }));
    else if (roll === 3) apply(events.dispatched(member.id, turn + 1));
    else {
      const result = randomResult(member.id);
      if (graph.validateNodeResult!(member.id, result) === null) {
        const position = teamPosition(member.id, turn);
        (result.posts ?? []).forEach((post, index) => {
          conversation.expectedMessages.push({ id: `${position}/${index}`, roomId: post.roomId, text: post.text, mentions: post.mentions, sender: member.id, position });
        });
      }
      apply(events.completed(member.id, turn, result));
      if (pick(10) === 0) apply(events.completed(member.id, turn, result));
    }
  };

  for (let step = 0; step < 300; step++) {
    const commands = graph.decide(state);
    const [first] = commands;
    if (first?.kind === 'complete' || first?.kind === 'fail') break;
    if (first?.kind === 'pause') {
      const paused = teamMemberStates(state).find((member) => member.status === 'paused')!;
      apply(events.resumed(paused.id, paused.turns));
      continue;
    }
    if (commands.length === 0) {
      settleOne();
      continue;
    }
    for (const command of commands) {
      if (command.kind !== 'dispatch') continue;
      conversation.inputs.push({ nodeId: command.nodeId, input: command.input as unknown as TeamDispatchInput, logIndex: conversation.log.length });
      conversation.dispatchCounts.set(command.nodeId, (conversation.dispatchCounts.get(command.nodeId) ?? 0) + 1);
      apply(event('node-dispatched', { nodeId: command.nodeId, position: command.position }));
    }
  }
  return conversation;
}

function snapshot(graph: CompiledGraph<TeamState>, state: TeamState) {
  return { members: teamMemberStates(state), messages: teamMessages(state), decision: graph.decide(state) };
}

const conversationArbitrary = fc.tuple(teamArbitrary, fc.array(fc.nat(1_000_000), { minLength: 20, maxLength: 200 }));

describe('random team conversations', () => {
  it('never let a member exceed its turn cap', () => {
    fc.assert(
      fc.property(conversationArbitrary, ([definition, choices]) => {
        const { states, dispatchCounts } = converse(definition, choices);
        const cap = definition.data.maxTurnsPerMember;
        for (const state of states) for (const member of teamMemberStates(state)) expect(member.turns).toBeLessThanOrEqual(cap);
        for (const count of dispatchCounts.values()) expect(count).toBeLessThanOrEqual(cap);
      }),
      { numRuns: 150 },
    );
  });

  it('turn every accepted post into exactly one message, and nothing else', () => {
    fc.assert(
      fc.property(conversationArbitrary, ([definition, choices]) => {
        const { states, expectedMessages } = converse(definition, choices);
        const final = states[states.length - 1]!;
        const messages = teamMessages(final);
        expect(messages).toEqual(expectedMessages);
        expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
        for (const room of definition.data.communication?.rooms ?? []) {
          expect(teamMessages(final, room.id)).toEqual(messages.filter((message) => message.roomId === room.id));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('give each member only its own result and messages of its rooms (tail plus triggers)', () => {
    fc.assert(
      fc.property(conversationArbitrary, ([definition, choices]) => {
        const { inputs, log, graph } = converse(definition, choices);
        const rooms = definition.data.communication?.rooms ?? [];
        const tail = definition.data.communication?.tailMessages ?? 0;
        const byLogIndex = new Map(inputs.map((input) => [input.logIndex, input]));
        let state = graph.initialState();
        log.forEach((entry, logIndex) => {
          const input = byLogIndex.get(logIndex);
          if (input !== undefined) {
            const member = teamMemberStates(state).find((candidate) => candidate.id === input.nodeId)!;
            expect(input.input.result).toEqual(member.result);
            const mine = rooms.filter((room) => room.members.includes(input.nodeId)).map((room) => room.id);
            const all = teamMessages(state);
            const wanted = all.filter((message, index) => {
              if (!mine.includes(message.roomId)) return false;
              if (member.triggers.includes(message.id)) return true;
              const later = all.slice(index + 1).filter((other) => other.roomId === message.roomId).length;
              return later < tail;
            });
            expect(input.input.messages).toEqual(wanted);
          }
          state = graph.reduce(state, entry);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('judge every dispatch input decide builds as isJson of the whole input does (JSON)', () => {
    fc.assert(
      fc.property(conversationArbitrary, ([definition, choices]) => {
        const { inputs, states } = converse(definition, choices);
        for (const { input } of inputs) {
          expect(isJson(input)).toBe(true);
          expect(teamDispatchInputIsJson(input)).toBe(true);
        }
        // The check takes every message the reducer saved as JSON without walking it: each is.
        for (const message of teamMessages(states[states.length - 1]!)) {
          expect(isSavedMessage(message)).toBe(true);
          expect(isJson(message)).toBe(true);
          expect(Object.isFrozen(message)).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('replay the same events from initialState to the same state and decisions', () => {
    fc.assert(
      fc.property(conversationArbitrary, ([definition, choices]) => {
        const { graph, log, states } = converse(definition, choices);
        const final = states[states.length - 1]!;
        const fresh = compileTeam(definition);
        const replayed = log.reduce((state, next) => fresh.reduce(state, next), fresh.initialState());
        expect(snapshot(fresh, replayed)).toEqual(snapshot(graph, final));
      }),
      { numRuns: 150 },
    );
  });

  it('fold correctly from a stale earlier state, even down a different branch, leaving newer states intact', () => {
    fc.assert(
      fc.property(conversationArbitrary, fc.array(fc.nat(1_000_000), { minLength: 20, maxLength: 100 }), fc.nat(), ([definition, choices], otherChoices, at) => {
        const { graph, log, states } = converse(definition, choices);
        const final = states[states.length - 1]!;
        const before = snapshot(graph, final);
        const k = at % states.length;

        const again = log.slice(k).reduce((state, next) => graph.reduce(state, next), states[k]!);
        expect(snapshot(graph, again)).toEqual(before);

        const branch = converse(definition, otherChoices, { graph, state: states[k]! });
        const branchFinal = branch.states[branch.states.length - 1]!;
        const fresh = compileTeam(definition);
        const replayed = [...log.slice(0, k), ...branch.log].reduce((state, next) => fresh.reduce(state, next), fresh.initialState());
        expect(snapshot(graph, branchFinal)).toEqual(snapshot(fresh, replayed));

        expect(snapshot(graph, final)).toEqual(before);
        const more = converse(definition, otherChoices.slice().reverse(), { graph, state: final });
        const moreReplayed = [...log, ...more.log].reduce((state, next) => fresh.reduce(state, next), fresh.initialState());
        expect(snapshot(graph, more.states[more.states.length - 1]!)).toEqual(snapshot(fresh, moreReplayed));
        for (let i = 0; i < states.length; i += Math.max(1, Math.floor(states.length / 10))) {
          const prefix = log.slice(0, i).reduce((state, next) => fresh.reduce(state, next), fresh.initialState());
          expect(snapshot(graph, states[i]!)).toEqual(snapshot(fresh, prefix));
        }
      }),
      { numRuns: 100 },
    );
  });
});
