import { describe, expect, it } from 'vitest';
import type { Json } from '@roundtable/core';
import { compileGraph, isGraphValidationError } from '@roundtable/graph';
import type { GraphDefinition, GraphEvent } from '@roundtable/graph';
import { resolveTeamConfig, teamJobDefinition, teamJobGraphType } from './index.js';
import type { TeamConfig, TeamJobState } from './index.js';

const START = 'a'.repeat(40);
const COMMIT = 'b'.repeat(40);
const JOB = '0b7e5a4c-1f2d-4e3a-9b8c-7d6e5f4a3b2c';
const run = () => ({ status: 'pass' as const, summary: 'ok' });
const agent = (name: string) => ({ name, role: `${name} role`, brief: `${name} brief`, run });

function definition(overrides: Partial<TeamConfig> = {}): GraphDefinition {
  const config = resolveTeamConfig({ task: 'Task.', repository: '/repo', agents: [agent('a'), agent('b'), agent('c')], ...overrides });
  return teamJobDefinition(config, { runId: 'run-1', jobId: JOB, startCommit: START });
}

const event = (type: string, payload: Record<string, Json>): GraphEvent => ({ type, version: 1, payload });
const dispatched = (nodeId: string) => event('graph:node-dispatched', { nodeId, position: nodeId });
const completed = (nodeId: string, result: Json) => event('graph:node-completed', { nodeId, position: nodeId, result });
const agentResult = (name: string, status: 'pass' | 'fail' = 'pass'): Json => ({
  summary: `${name} done`,
  status,
  data: null,
  commit: status === 'pass' ? COMMIT : null,
  branch: `roundtable/run-1/agent/${name}`,
  recovered: false,
});

function fold(graph: ReturnType<typeof compileGraph<TeamJobState>>, events: GraphEvent[]): TeamJobState {
  return events.reduce((state, next) => graph.reduce(state, next), graph.initialState());
}

describe('teamJobGraphType', () => {
  it('is kind team-job, version 1, and describes agents, integration and review', () => {
    const graph = compileGraph(teamJobGraphType, definition({ review: { kind: 'panel', reviewers: [{ name: 'r', run }] } }));
    expect(graph.kind).toBe('team-job');
    expect(graph.typeVersion).toBe(1);
    expect(graph.describe()).toMatchObject({
      kind: 'team-job',
      version: 1,
      jobId: JOB,
      startCommit: START,
      agents: [
        { id: 'agent/a', name: 'a', role: 'a role', branch: 'roundtable/run-1/agent/a' },
        { id: 'agent/b', name: 'b' },
        { id: 'agent/c', name: 'c' },
      ],
      integration: { id: 'integration', branch: 'roundtable/run-1/integration' },
      review: { kind: 'panel', threshold: 1, reviewers: [{ id: 'review/r', name: 'r' }] },
      dispatch: { min: 3, max: 5 },
    });
  });

  it('starts agents in declaration order, `concurrency` at a time, each batch settling first', () => {
    const graph = compileGraph(teamJobGraphType, definition({ concurrency: 2 }));
    const first = graph.decide(graph.initialState());
    expect(first.map((command) => (command.kind === 'dispatch' ? command.position : command.kind))).toEqual(['agent/a', 'agent/b']);
    expect(first[0]).toMatchObject({ input: { prompt: 'Task: Task.\n\nRole: a role\n\nBrief: a brief', branch: 'roundtable/run-1/agent/a', startCommit: START, jobId: JOB } });
    const halfway = fold(graph, [dispatched('agent/a'), dispatched('agent/b'), completed('agent/a', agentResult('a'))]);
    expect(graph.decide(halfway)).toEqual([]);
    const next = fold(graph, [dispatched('agent/a'), dispatched('agent/b'), completed('agent/a', agentResult('a')), completed('agent/b', agentResult('b'))]);
    expect(graph.decide(next).map((command) => command.kind === 'dispatch' && command.position)).toEqual(['agent/c']);
  });

  it('integrates only after every agent passed, then completes with the report', () => {
    const graph = compileGraph(teamJobGraphType, definition());
    const agentsDone = ['a', 'b', 'c'].flatMap((name) => [dispatched(`agent/${name}`)]).concat(['a', 'b', 'c'].map((name) => completed(`agent/${name}`, agentResult(name))));
    const integrate = graph.decide(fold(graph, agentsDone));
    expect(integrate).toMatchObject([{ kind: 'dispatch', position: 'integration', input: { startCommit: START, jobId: JOB, branch: 'roundtable/run-1/integration' } }]);
    const done = fold(graph, [
      ...agentsDone,
      dispatched('integration'),
      completed('integration', { summary: 'merged', integrated: true, branch: 'roundtable/run-1/integration', commit: COMMIT, merged: ['a', 'b', 'c'], conflict: null }),
    ]);
    expect(graph.decide(done)).toMatchObject([{ kind: 'complete', output: { integrated: true, summary: '3 of 3 agents passed; integrated into roundtable/run-1/integration.' } }]);
  });

  it('fails AGENT_FAILED naming every failed agent, without integrating', () => {
    const graph = compileGraph(teamJobGraphType, definition());
    const state = fold(graph, [
      dispatched('agent/a'),
      dispatched('agent/b'),
      dispatched('agent/c'),
      completed('agent/a', agentResult('a', 'fail')),
      completed('agent/b', agentResult('b')),
      event('graph:node-failed', { nodeId: 'agent/c', position: 'agent/c', code: 'EFFECT_FAILED', message: 'boom' }),
    ]);
    expect(graph.decide(state)).toEqual([{ kind: 'fail', code: 'AGENT_FAILED', message: 'Agents a and c failed; nothing was integrated.' }]);
  });

  it('treats a recorded completion with an invalid result as a failed step, and ignores events at other positions', () => {
    const graph = compileGraph(teamJobGraphType, definition({ agents: [agent('a')] }));
    const state = fold(graph, [dispatched('agent/a'), completed('agent/a', { summary: 'no status' })]);
    expect(state.steps['agent/a']).toMatchObject({ status: 'failed', failure: { code: 'RESULT_INVALID' } });
    const ignored = fold(graph, [event('graph:node-dispatched', { nodeId: 'agent/a', position: 'agent/a/2' })]);
    expect(ignored.steps['agent/a']!.status).toBe('pending');
    expect(graph.validateNodeResult!('agent/a', agentResult('a'))).toBeNull();
    expect(graph.validateNodeResult!('integration', {})).toMatchObject({ code: 'RESULT_INVALID' });
  });

  it('refuses definitions that do not fit (INVALID_TEAM_JOB)', () => {
    const good = definition({ review: { kind: 'panel', reviewers: [{ name: 'r', run }] } });
    const variants: GraphDefinition[] = [
      { ...good, edges: [{ id: 'e', source: 'agent/a', target: 'integration', data: null }] },
      { ...good, nodes: good.nodes.map((node) => (node.id === 'agent/a' ? { ...node, id: 'agent-a' } : node)) },
      { ...good, nodes: good.nodes.filter((node) => node.id !== 'integration') },
      { ...good, nodes: good.nodes.filter((node) => !node.id.startsWith('agent/')) },
      { ...good, nodes: [...good.nodes].reverse() },
      { ...good, data: { ...(good.data as Record<string, Json>), startCommit: 'HEAD' } },
      { ...good, data: { ...(good.data as Record<string, Json>), jobId: 'job-1' } },
      { ...good, data: Object.fromEntries(Object.entries(good.data as Record<string, Json>).filter(([key]) => key !== 'jobId')) },
      { ...good, data: { ...(good.data as Record<string, Json>), review: { kind: 'panel', threshold: 2 } } },
      { ...good, data: { ...(good.data as Record<string, Json>), integrate: false } },
    ];
    for (const variant of variants) {
      let thrown: unknown;
      try {
        compileGraph(teamJobGraphType, variant);
      } catch (error) {
        thrown = error;
      }
      expect(isGraphValidationError(thrown) && thrown.code === 'INVALID_TEAM_JOB', JSON.stringify(variant.nodes.map((node) => node.id))).toBe(true);
    }
  });
});
