import { describe, expect, it } from 'vitest';
import { TEAM_GRAPH_KIND, TEAM_GRAPH_VERSION, TeamDefinitionSchema, compileGraph, isGraphValidationError, teamGraphType } from './index.js';
import type { GraphDefinition, GraphValidationError, GraphValidationIssue, TeamDefinition } from './index.js';
import { compileTeam, seedTeam, team } from './__fixtures__/teamFixtures.js';

function teamIssues(definition: unknown): [string, string][] {
  try {
    compileGraph(teamGraphType, definition as GraphDefinition);
  } catch (error) {
    expect(isGraphValidationError(error)).toBe(true);
    return (error as GraphValidationError).issues.map((issue: GraphValidationIssue) => [issue.code, issue.path]);
  }
  throw new Error('expected the team definition to be refused');
}

/** The seed team with one field changed (`edit` receives a mutable copy). */
function seedWith(edit: (definition: { data: Record<string, unknown>; nodes: { id: string; data: Record<string, unknown> }[]; edges: unknown[] }) => void): unknown {
  const definition = structuredClone(seedTeam()) as unknown as Parameters<typeof edit>[0];
  edit(definition);
  return definition;
}

function room(definition: Parameters<Parameters<typeof seedWith>[0]>[0]): Record<string, unknown> {
  return (definition.data['communication'] as { rooms: Record<string, unknown>[] }).rooms[0]!;
}

describe('teamGraphType', () => {
  it('is kind "team", version 1', () => {
    expect(teamGraphType.kind).toBe('team');
    expect(teamGraphType.version).toBe(1);
    expect(TEAM_GRAPH_KIND).toBe('team');
    expect(TEAM_GRAPH_VERSION).toBe(1);
    const graph = compileTeam(seedTeam());
    expect(graph.kind).toBe('team');
    expect(graph.typeVersion).toBe(1);
    expect(typeof graph.validateNodeResult).toBe('function');
  });

  it('accepts the seed definition, which the zod schema also accepts', () => {
    expect(() => compileTeam(seedTeam())).not.toThrow();
    expect(TeamDefinitionSchema.safeParse(seedTeam()).success).toBe(true);
  });

  it('runs the generic definition checks first', () => {
    expect(teamIssues(seedWith((d) => (d.nodes[1]!.id = 'writer')))).toEqual([['DUPLICATE_NODE_ID', '/nodes/1/id']]);
  });
});

describe('team definition validation (INVALID_TEAM)', () => {
  const limits = [
    ['globalConcurrency', (d: Parameters<Parameters<typeof seedWith>[0]>[0], value: unknown) => (d.data['globalConcurrency'] = value), '/data/globalConcurrency'],
    ['maxTurnsPerMember', (d: Parameters<Parameters<typeof seedWith>[0]>[0], value: unknown) => (d.data['maxTurnsPerMember'] = value), '/data/maxTurnsPerMember'],
    [
      'tailMessages',
      (d: Parameters<Parameters<typeof seedWith>[0]>[0], value: unknown) => ((d.data['communication'] as Record<string, unknown>)['tailMessages'] = value),
      '/data/communication/tailMessages',
    ],
  ] as const;

  for (const [name, set, path] of limits) {
    it.each([0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, -0, '2', null, true])(`refuses ${name} = %s`, (value) => {
      expect(teamIssues(seedWith((d) => set(d, value)))).toEqual([['INVALID_TEAM', path]]);
    });
    it(`accepts ${name} = 1 and a large safe integer`, () => {
      expect(() => compileGraph(teamGraphType, seedWith((d) => set(d, 1)) as GraphDefinition)).not.toThrow();
      const large = name === 'maxTurnsPerMember' ? Math.floor(Number.MAX_SAFE_INTEGER / 2) : Number.MAX_SAFE_INTEGER;
      expect(() => compileGraph(teamGraphType, seedWith((d) => set(d, large)) as GraphDefinition)).not.toThrow();
    });
  }

  it('requires the limits to be present', () => {
    expect(teamIssues(seedWith((d) => delete d.data['globalConcurrency']))).toEqual([['INVALID_TEAM', '/data/globalConcurrency']]);
    expect(teamIssues(seedWith((d) => delete (d.data['communication'] as Record<string, unknown>)['tailMessages']))).toEqual([
      ['INVALID_TEAM', '/data/communication/tailMessages'],
    ]);
  });

  it('refuses a member count times maxTurnsPerMember that is not a safe integer', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(teamIssues(seedWith((d) => (d.data['maxTurnsPerMember'] = max)))).toEqual([['INVALID_TEAM', '/data/maxTurnsPerMember']]);
    expect(teamIssues(seedWith((d) => (d.data['maxTurnsPerMember'] = Math.floor(max / 2) + 1)))).toEqual([['INVALID_TEAM', '/data/maxTurnsPerMember']]);
    const single = team({ members: [{ id: 'solo' }], maxTurnsPerMember: max });
    expect(() => compileTeam(single)).not.toThrow();
  });

  it('refuses a task that is not a string and data that is not an object', () => {
    expect(teamIssues(seedWith((d) => (d.data['task'] = 3)))).toEqual([['INVALID_TEAM', '/data/task']]);
    expect(teamIssues({ ...seedTeam(), data: null })).toEqual([['INVALID_TEAM', '/data']]);
    expect(teamIssues({ ...seedTeam(), data: ['x'] })).toEqual([['INVALID_TEAM', '/data']]);
  });

  it.each(['', ' a', 'a ', 'a\n', 'a\u007f', 'a\u0001', 5, null])('refuses room id %j', (id) => {
    expect(teamIssues(seedWith((d) => (room(d)['id'] = id)))).toEqual([['INVALID_TEAM', '/data/communication/rooms/0/id']]);
  });

  it('accepts room ids that look like paths or are very long', () => {
    for (const id of ['../outside.txt', '/etc/passwd', 'x'.repeat(300), 'a b', 'C:\\temp']) {
      expect(() => compileGraph(teamGraphType, seedWith((d) => (room(d)['id'] = id)) as GraphDefinition)).not.toThrow();
    }
  });

  it('refuses duplicate room ids', () => {
    const definition = seedWith((d) => {
      (d.data['communication'] as { rooms: unknown[] }).rooms.push({ id: 'review', members: ['writer'] });
    });
    expect(teamIssues(definition)).toEqual([['INVALID_TEAM', '/data/communication/rooms/1/id']]);
  });

  it('refuses room members that are undeclared, repeated or not strings', () => {
    expect(teamIssues(seedWith((d) => (room(d)['members'] = ['writer', 'ghost'])))).toEqual([['INVALID_TEAM', '/data/communication/rooms/0/members/1']]);
    expect(teamIssues(seedWith((d) => (room(d)['members'] = ['writer', 'reviewer', 'writer'])))).toEqual([
      ['INVALID_TEAM', '/data/communication/rooms/0/members/2'],
    ]);
    expect(teamIssues(seedWith((d) => (room(d)['members'] = [1])))).toEqual([['INVALID_TEAM', '/data/communication/rooms/0/members/0']]);
    expect(teamIssues(seedWith((d) => (room(d)['members'] = 'writer')))).toEqual([['INVALID_TEAM', '/data/communication/rooms/0/members']]);
  });

  it('accepts an empty room and a team without communication', () => {
    expect(() => compileGraph(teamGraphType, seedWith((d) => (room(d)['members'] = [])) as GraphDefinition)).not.toThrow();
    expect(() => compileTeam(team({ members: [{ id: 'a' }], rooms: null }))).not.toThrow();
  });

  it('refuses malformed communication', () => {
    expect(teamIssues(seedWith((d) => (d.data['communication'] = null)))).toEqual([['INVALID_TEAM', '/data/communication']]);
    expect(teamIssues(seedWith((d) => ((d.data['communication'] as Record<string, unknown>)['rooms'] = {})))).toEqual([
      ['INVALID_TEAM', '/data/communication/rooms'],
    ]);
    expect(teamIssues(seedWith((d) => ((d.data['communication'] as { rooms: unknown[] }).rooms[0] = 'review')))).toEqual([
      ['INVALID_TEAM', '/data/communication/rooms/0'],
    ]);
  });

  it('refuses member data whose role or brief is not a string, or whose initialTurn is not a boolean', () => {
    expect(teamIssues(seedWith((d) => (d.nodes[0]!.data['role'] = 1)))).toEqual([['INVALID_TEAM', '/nodes/0/data/role']]);
    expect(teamIssues(seedWith((d) => delete d.nodes[1]!.data['brief']))).toEqual([['INVALID_TEAM', '/nodes/1/data/brief']]);
    expect(teamIssues(seedWith((d) => (d.nodes[1]!.data['initialTurn'] = 'no')))).toEqual([['INVALID_TEAM', '/nodes/1/data/initialTurn']]);
    expect(teamIssues(seedWith((d) => (d.nodes[1]!.data['initialTurn'] = null)))).toEqual([['INVALID_TEAM', '/nodes/1/data/initialTurn']]);
    expect(teamIssues(seedWith((d) => (d.nodes[0]!.data = null as never)))).toEqual([['INVALID_TEAM', '/nodes/0/data']]);
  });

  it('refuses unknown fields, so a misspelt optional field is not silently ignored', () => {
    expect(teamIssues(seedWith((d) => (d.nodes[1]!.data['initalTurn'] = false)))).toEqual([['INVALID_TEAM', '/nodes/1/data/initalTurn']]);
    expect(teamIssues(seedWith((d) => (d.data['comunication'] = {})))).toEqual([['INVALID_TEAM', '/data/comunication']]);
    expect(teamIssues(seedWith((d) => (room(d)['private'] = true)))).toEqual([['INVALID_TEAM', '/data/communication/rooms/0/private']]);
  });

  it('refuses edges: messages request turns, edges do not connect members', () => {
    expect(teamIssues(seedWith((d) => d.edges.push({ id: 'e', source: 'writer', target: 'reviewer', data: null })))).toEqual([['INVALID_TEAM', '/edges']]);
  });

  it('reports every team issue at once, code INVALID_TEAM', () => {
    const definition = seedWith((d) => {
      d.data['task'] = null;
      d.data['globalConcurrency'] = 0;
      room(d)['id'] = '';
      d.nodes[0]!.data['brief'] = 2;
    });
    expect(teamIssues(definition)).toEqual([
      ['INVALID_TEAM', '/data/task'],
      ['INVALID_TEAM', '/data/globalConcurrency'],
      ['INVALID_TEAM', '/data/communication/rooms/0/id'],
      ['INVALID_TEAM', '/nodes/0/data/brief'],
    ]);
  });
});

describe('describe()', () => {
  it('states kind, version, members, stop, concurrency and dispatch bounds', () => {
    expect(compileTeam(seedTeam()).describe()).toEqual({
      kind: 'team',
      version: 1,
      task: 'Write the release notes.',
      members: [
        { id: 'writer', role: 'writer', initialTurn: true },
        { id: 'reviewer', role: 'reviewer', initialTurn: false },
      ],
      communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }], tailMessages: 3 },
      stop: { maxTurnsPerMember: 2 },
      concurrency: { global: 2 },
      dispatch: { min: 1, max: 4 },
    });
  });

  it('counts every member with an initial turn as the minimum and members × cap as the maximum', () => {
    const definition: TeamDefinition = team({
      members: [{ id: 'a' }, { id: 'b', initialTurn: true }, { id: 'c', initialTurn: false }, { id: 'd' }],
      rooms: null,
      globalConcurrency: 3,
      maxTurnsPerMember: 7,
    });
    const described = compileTeam(definition).describe() as Record<string, unknown>;
    expect(described['dispatch']).toEqual({ min: 3, max: 28 });
    expect(described['stop']).toEqual({ maxTurnsPerMember: 7 });
    expect(described['concurrency']).toEqual({ global: 3 });
    expect(described['communication']).toBeNull();
  });
});
