import { describe, expect, expectTypeOf, it } from 'vitest';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDispatchInput, TeamGraphResult, TeamTurnResult } from '@roundtable/graph';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor, isGraphExecutionError, teamMemberResult, teamMembers, teamOutput } from './index.js';
import type { GraphRunResult, NodeBinding, TeamMemberBindingObject, TeamMemberContext } from './index.js';
import { seedTeam } from './__fixtures__/testTeams.js';

// The definition is a literal, so TypeScript sees its member ids.
const graph = compileGraph(teamGraphType, {
  id: 'trio',
  definitionVersion: 1,
  data: { task: 'Plan the launch.', globalConcurrency: 1, maxTurnsPerMember: 2, communication: { rooms: [{ id: 'all', members: ['a', 'b', 'c'] }], tailMessages: 5 } },
  nodes: [
    { id: 'a', data: { role: 'lead', brief: 'Ask b.' } },
    { id: 'b', data: { role: 'helper', brief: 'Answer a.', initialTurn: false } },
    { id: 'c', data: { role: 'scribe', brief: 'Write it down.', initialTurn: false } },
  ],
  edges: [],
});

function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('teamMembers (SPEC 11.8)', () => {
  it('types ctx.input as TeamDispatchInput and the result as TeamTurnResult', () => {
    const nodes = teamMembers(graph, {
      a: (ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<TeamMemberContext>();
        expectTypeOf(ctx.input).toEqualTypeOf<TeamDispatchInput>();
        expectTypeOf(ctx.input.turn).toEqualTypeOf<number>();
        return { summary: `turn ${ctx.input.turn}` };
      },
      b: { run: ({ input }) => ({ summary: input.task }), retry: { maxAttempts: 2 } },
      c: { run: () => Promise.resolve({ summary: 'noted' }), decideAction: (ctx) => (ctx.input.triggers.length > 0 ? { kind: 'allow' } : { kind: 'deny', reason: 'no trigger' }) },
    });
    expectTypeOf(nodes).toEqualTypeOf<Readonly<Record<'a' | 'b' | 'c', NodeBinding>>>();
    expectTypeOf<Parameters<typeof teamMembers<'a' | 'b' | 'c'>>[1]['a']>().not.toBeAny();
    // A member must return a TeamTurnResult.
    // @ts-expect-error summary must be a string
    teamMembers(graph, { a: () => ({ summary: 1 }), b: () => ({ summary: '' }), c: () => ({ summary: '' }) });
  });

  it('rejects a misspelled member id at compile time and at run time (UNKNOWN_NODE_BINDING)', () => {
    const ok = () => ({ summary: '' });
    const error = thrown(() =>
      // @ts-expect-error "C" is not a member id of this team (it is "c")
      teamMembers(graph, { a: ok, b: ok, C: ok }),
    );
    expect(isGraphExecutionError(error, 'UNKNOWN_NODE_BINDING')).toBe(true);
    expect((error as Error).message).toContain('"C"');
  });

  it('rejects a missing member at compile time and at run time (MISSING_NODE_BINDING)', () => {
    const ok = () => ({ summary: '' });
    // @ts-expect-error c has no binding
    const error = thrown(() => teamMembers(graph, { a: ok, b: ok }));
    expect(isGraphExecutionError(error, 'MISSING_NODE_BINDING')).toBe(true);
  });

  it('checks keys at run time when the definition is not a literal', () => {
    const wide = compileGraph(teamGraphType, seedTeam());
    const ok = () => ({ summary: '' });
    expect(isGraphExecutionError(thrown(() => teamMembers(wide, { writer: ok, reviewer: ok, Writer: ok })), 'UNKNOWN_NODE_BINDING')).toBe(true);
    expect(isGraphExecutionError(thrown(() => teamMembers(wide, { writer: ok })), 'MISSING_NODE_BINDING')).toBe(true);
  });

  it('runs a team end to end, and teamOutput gives the typed output', async () => {
    const nodes = teamMembers(graph, {
      a: ({ input }) =>
        input.turn === 1
          ? { summary: 'asked', posts: [{ roomId: 'all', text: 'b, the date?', mentions: ['b'] }] }
          : { summary: `date is ${input.messages.at(-1)?.text ?? '?'}`, posts: [{ roomId: 'all', text: 'noted', mentions: ['c'] }] },
      b: ({ input }) => ({ summary: 'answered', posts: [{ roomId: 'all', text: `June (asked in ${input.triggers.join(',')})`, mentions: ['a'] }] }),
      c: ({ input }) => ({ summary: `wrote down ${input.messages.length} messages` }),
    });
    const result: GraphRunResult = await (await createGraphExecutor({ runId: 'trio-1', graph, storage: createMemoryStorage(), nodes })).run();
    const output = teamOutput(result);
    expectTypeOf(output).toEqualTypeOf<TeamGraphResult | null>();
    expect(output?.agents.map((agent) => agent.name)).toEqual(['a', 'b', 'c']);
    const a = teamMemberResult(output!, 'a');
    expectTypeOf(a).toEqualTypeOf<TeamTurnResult | null>();
    expect(a?.summary).toBe('date is June (asked in team/a/1/0)');
    expect(teamMemberResult(output!, 'c')?.summary).toBe('wrote down 3 messages');
    expect(teamOutput({ kind: 'waiting', positions: [] })).toBeNull();
    expect(teamOutput({ kind: 'complete', output: { not: 'a team' } })).toBeNull();
  });

  it('a typed member binding also fits a plain nodes object (what a model-member helper returns)', () => {
    const typed: TeamMemberBindingObject = { run: ({ input }) => ({ summary: input.task }), retry: { maxAttempts: 2 } };
    expectTypeOf(typed).toExtend<NodeBinding>();
    const plain: Record<string, NodeBinding> = { a: typed, b: typed, c: typed };
    expect(Object.keys(teamMembers(graph, { a: typed, b: typed, c: typed }))).toEqual(Object.keys(plain));
  });

  it('leaves plain nodes objects working', async () => {
    const plain: Record<string, NodeBinding> = { a: () => ({ summary: 'x' }), b: () => ({ summary: 'y' }), c: () => ({ summary: 'z' }) };
    expect((await (await createGraphExecutor({ runId: 'plain', graph, storage: createMemoryStorage(), nodes: plain })).run()).kind).toBe('complete');
  });
});
