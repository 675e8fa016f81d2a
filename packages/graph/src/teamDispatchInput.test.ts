import { isJson } from '@roundtable/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GraphValidationError, teamMemberStates } from './index.js';
import type { DispatchCommand, TeamMemberState, TeamState } from './index.js';
import { teamDispatchInputIsJson } from './teamDecide.js';
import { compileTeam, events, fold, post, seedTeam } from './__fixtures__/teamFixtures.js';

// compileGraph judges the team's dispatch inputs with teamDispatchInputIsJson instead of walking
// each whole input: these tests show it gives isJson's verdict, so no input the walk refused passes.

const graph = compileTeam(seedTeam());
const draft = { summary: 'draft', posts: [post('review', 'Please review the draft.', ['reviewer'])] };
/** The reviewer's turn is next: its input holds a saved message and a trigger. */
const reviewerNext = fold(graph, [events.dispatched('writer', 1), events.completed('writer', 1, draft)]);

function reviewerInput(state: TeamState): Record<string, unknown> {
  const [command] = graph.decide(state);
  return (command as DispatchCommand).input as Record<string, unknown>;
}

/** `state` with the reviewer's state changed by `change`: a state no reducer made, as a caller of decide could pass. */
function forged(state: TeamState, change: Partial<Record<keyof TeamMemberState, unknown>>): TeamState {
  const members = teamMemberStates(state).map((member) => (member.id === 'reviewer' ? { ...member, ...change } : member));
  return { ...state, members } as unknown as TeamState;
}

function nested(levels: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < levels; level++) value = Object.freeze([value]);
  return value;
}

const anyValue = fc.oneof(
  fc.jsonValue(),
  fc.anything({ withMap: true, withSet: true, withDate: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: true }),
);

describe('the team dispatch input check', () => {
  it('gives the verdict of isJson for the whole input, whatever its state-made parts hold', () => {
    const input = reviewerInput(reviewerNext);
    expect(teamDispatchInputIsJson(input)).toBe(true);
    fc.assert(
      fc.property(anyValue, fc.constantFrom('result', 'turn', 'message', 'trigger'), (value, part) => {
        const messages = input['messages'] as unknown[];
        const triggers = input['triggers'] as unknown[];
        const changed = {
          ...input,
          ...(part === 'result' ? { result: value } : {}),
          ...(part === 'turn' ? { turn: value } : {}),
          ...(part === 'message' ? { messages: [...messages, value] } : {}),
          ...(part === 'trigger' ? { triggers: [value, ...triggers] } : {}),
        };
        expect(teamDispatchInputIsJson(changed)).toBe(isJson(changed));
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps the nesting limit of the whole input: a result 255 levels deep fits, 256 does not', () => {
    const input = reviewerInput(reviewerNext);
    for (const levels of [254, 255, 256, 257]) {
      const changed = { ...input, result: nested(levels) };
      expect(teamDispatchInputIsJson(changed)).toBe(isJson(changed));
    }
    expect(teamDispatchInputIsJson({ ...input, result: nested(255) })).toBe(true);
    expect(teamDispatchInputIsJson({ ...input, result: nested(256) })).toBe(false);
    for (const levels of [253, 254, 255]) {
      const changed = { ...input, messages: [nested(levels)] };
      expect(teamDispatchInputIsJson(changed)).toBe(isJson(changed));
    }
  });

  /** `state` with a log, made by hand, whose every message has `change` (and whose ids are the changed id). */
  function withHandMadeMessage(state: TeamState, change: Record<string, unknown>): TeamState {
    const { log } = state;
    const handMade = {
      roomMessages: log.roomMessages,
      roomIndex: log.roomIndex,
      length: log.length,
      indexOf: (id: string) => log.indexOf(id),
      id: (index: number) => (typeof change['id'] === 'string' ? change['id'] : log.id(index)),
      message: (index: number) => ({ ...log.message(index), ...change }),
      slice: (from: number, to: number) => log.slice(from, to).map((message) => ({ ...message, ...change })),
    };
    return { ...state, log: handMade } as unknown as TeamState;
  }

  it('still makes decide refuse a state whose parts are not JSON (INVALID_GRAPH_COMMAND at the input)', () => {
    const broken: [string, TeamState][] = [
      ['a result holding NaN', forged(reviewerNext, { result: { summary: 'x', data: Number.NaN } })],
      ['a result holding a Date', forged(reviewerNext, { result: { summary: 'x', data: new Date(0) } })],
      ['a result too deep for the input', forged(reviewerNext, { result: nested(256) })],
      ['a turn that is not a number', forged(reviewerNext, { turns: undefined })],
      ['a message put in the log by hand that is not JSON', withHandMadeMessage(reviewerNext, { text: Number.NaN })],
      ['a lone surrogate in a trigger', withHandMadeMessage(reviewerNext, { id: '\ud800' })],
    ];
    for (const [label, state] of broken) {
      let issues: unknown[] = [];
      try {
        graph.decide(state);
      } catch (error) {
        if (error instanceof GraphValidationError) issues = error.issues;
      }
      expect(issues, label).toEqual([expect.objectContaining({ code: 'INVALID_GRAPH_COMMAND', path: '/0/input' })]);
    }
    expect(() => graph.decide(forged(reviewerNext, { result: nested(255) }))).not.toThrow();
  });
});
