import { canonicalJson, digest, isJson, isRoundtableError } from '@roundtable/core';
import type { Json, ReadonlyJson } from '@roundtable/core';
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { GraphErrorCodes, GraphValidationError, compileGraph, isGraphValidationError, teamGraphType } from './index.js';
import type { CompiledGraph, GraphCommand, GraphDefinition, GraphEvent, GraphType, GraphValidationIssue, TeamState } from './index.js';

/** A tiny graph type whose state is the command list `decide` returns; events replace it. */
const echoType: GraphType<unknown> = {
  kind: 'echo',
  version: 3,
  compile: () => ({
    initialState: () => [],
    reduce: (_state, event) => event.payload,
    decide: (state) => state as GraphCommand[],
    describe: () => ({ kind: 'echo' }),
  }),
};

function definition(overrides: Record<string, unknown> = {}): GraphDefinition {
  return {
    id: 'graph',
    definitionVersion: 1,
    data: { title: 'a graph' },
    nodes: [
      { id: 'a', data: null },
      { id: 'b', data: { weight: 2 } },
    ],
    edges: [{ id: 'a-b', source: 'a', target: 'b', data: [] }],
    ...overrides,
  };
}

function issuesOf(action: () => unknown): GraphValidationIssue[] {
  try {
    action();
  } catch (error) {
    expect(isGraphValidationError(error)).toBe(true);
    return (error as GraphValidationError).issues;
  }
  throw new Error('expected a GraphValidationError');
}

function compileIssues(value: unknown): GraphValidationIssue[] {
  return issuesOf(() => compileGraph(echoType, value as GraphDefinition));
}

function codesAndPaths(issues: GraphValidationIssue[]): [string, string][] {
  return issues.map((issue) => [issue.code, issue.path]);
}

const badIds: unknown[] = ['', ' a', 'a ', 'a\n', 'a\u007f', 'a\u0000b', 7, null];

describe('compileGraph: definition validation', () => {
  it('compiles a valid definition', () => {
    const graph = compileGraph(echoType, definition());
    expect(graph.kind).toBe('echo');
    expect(graph.typeVersion).toBe(3);
    expect(graph.definition.value).toEqual(definition());
    expect(graph.describe()).toEqual({ kind: 'echo' });
  });

  it('refuses a value that is not an object', () => {
    for (const value of [null, [], 'graph', 3, undefined]) {
      expect(codesAndPaths(compileIssues(value))).toEqual([['INVALID_DEFINITION', '']]);
    }
  });

  it.each(badIds)('refuses %j as a graph, node or edge id with INVALID_ID', (bad) => {
    expect(codesAndPaths(compileIssues(definition({ id: bad })))).toEqual([['INVALID_ID', '/id']]);
    const nodes = [{ id: 'a', data: null }, { id: bad, data: null }];
    expect(codesAndPaths(compileIssues(definition({ nodes, edges: [] })))).toEqual([['INVALID_ID', '/nodes/1/id']]);
    const edges = [{ id: bad, source: 'a', target: 'b', data: null }];
    expect(codesAndPaths(compileIssues(definition({ edges })))).toEqual([['INVALID_ID', '/edges/0/id']]);
  });

  it('accepts ids with inner spaces, slashes, dots and non-ASCII letters', () => {
    const nodes = [{ id: 'a b', data: null }, { id: '../x/y', data: null }, { id: 'é', data: null }];
    expect(() => compileGraph(echoType, definition({ id: 'g/1 é', nodes, edges: [] }))).not.toThrow();
  });

  it('refuses duplicate node and edge ids', () => {
    const nodes = [{ id: 'a', data: null }, { id: 'b', data: null }, { id: 'a', data: null }];
    expect(codesAndPaths(compileIssues(definition({ nodes, edges: [] })))).toEqual([['DUPLICATE_NODE_ID', '/nodes/2/id']]);
    const edges = [
      { id: 'e', source: 'a', target: 'b', data: null },
      { id: 'e', source: 'b', target: 'a', data: null },
    ];
    expect(codesAndPaths(compileIssues(definition({ edges })))).toEqual([['DUPLICATE_EDGE_ID', '/edges/1/id']]);
  });

  it('lets a node and an edge share an id (separate namespaces)', () => {
    expect(() => compileGraph(echoType, definition({ edges: [{ id: 'a', source: 'a', target: 'b', data: null }] }))).not.toThrow();
  });

  it.each([0, -1, 1.5, 2 ** 53, Number.NaN, '1', null])('refuses definitionVersion %j with INVALID_VERSION', (version) => {
    expect(codesAndPaths(compileIssues(definition({ definitionVersion: version })))).toEqual([['INVALID_VERSION', '/definitionVersion']]);
  });

  it('accepts definitionVersion 2^53 - 1', () => {
    expect(() => compileGraph(echoType, definition({ definitionVersion: 2 ** 53 - 1 }))).not.toThrow();
  });

  it('refuses edges naming undeclared nodes', () => {
    const edges = [{ id: 'e', source: 'x', target: 'b', data: null }, { id: 'f', source: 'a', target: 'y', data: null }];
    expect(codesAndPaths(compileIssues(definition({ edges })))).toEqual([
      ['UNKNOWN_SOURCE_NODE', '/edges/0/source'],
      ['UNKNOWN_TARGET_NODE', '/edges/1/target'],
    ]);
  });

  it('requires data on the graph, every node and every edge (INVALID_DEFINITION)', () => {
    const { data: _data, ...withoutData } = definition();
    expect(codesAndPaths(compileIssues(withoutData))).toEqual([['INVALID_DEFINITION', '/data']]);
    expect(codesAndPaths(compileIssues(definition({ data: undefined })))).toEqual([['INVALID_DEFINITION', '/data']]);
    const nodes = [{ id: 'a' }, { id: 'b', data: null }];
    expect(codesAndPaths(compileIssues(definition({ nodes })))).toEqual([['INVALID_DEFINITION', '/nodes/0/data']]);
    const edges = [{ id: 'e', source: 'a', target: 'b' }];
    expect(codesAndPaths(compileIssues(definition({ edges })))).toEqual([['INVALID_DEFINITION', '/edges/0/data']]);
  });

  it('refuses lists that are not arrays, members that are not objects, and unknown fields', () => {
    expect(codesAndPaths(compileIssues(definition({ nodes: {}, edges: [] })))).toEqual([['INVALID_DEFINITION', '/nodes']]);
    expect(codesAndPaths(compileIssues(definition({ edges: 'none' })))).toEqual([['INVALID_DEFINITION', '/edges']]);
    expect(codesAndPaths(compileIssues(definition({ nodes: [null, { id: 'b', data: null }], edges: [] })))).toEqual([
      ['INVALID_DEFINITION', '/nodes/0'],
    ]);
    expect(codesAndPaths(compileIssues(definition({ extra: 1 })))).toEqual([['INVALID_DEFINITION', '/extra']]);
    const nodes = [{ id: 'a', data: null, kind: 'x' }, { id: 'b', data: null }];
    expect(codesAndPaths(compileIssues(definition({ nodes, edges: [] })))).toEqual([['INVALID_DEFINITION', '/nodes/0/kind']]);
  });

  it('refuses non-JSON data with INVALID_JSON_VALUE and a JSON-pointer path', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const cases: [unknown, string][] = [
      [{ a: { b: undefined } }, '/data/a/b'],
      [{ list: [1, Number.NaN] }, '/data/list/1'],
      [new Map(), '/data'],
      [{ when: new Date(0) }, '/data/when'],
      [cyclic, '/data/self'],
      [{ 'a/b': () => 1 }, '/data/a~1b'],
    ];
    for (const [data, path] of cases) {
      expect(codesAndPaths(compileIssues(definition({ data })))).toEqual([['INVALID_JSON_VALUE', path]]);
    }
    const nodes = [{ id: 'a', data: null }, { id: 'b', data: { x: Infinity } }];
    expect(codesAndPaths(compileIssues(definition({ nodes })))).toEqual([['INVALID_JSON_VALUE', '/nodes/1/data/x']]);
  });

  it('refuses a lone surrogate in an otherwise valid id with INVALID_JSON_VALUE', () => {
    expect(codesAndPaths(compileIssues(definition({ id: 'g\ud800' })))).toEqual([['INVALID_JSON_VALUE', '/id']]);
  });

  it('collects every issue in one error whose code is the first issue code', () => {
    const value = {
      id: ' bad',
      definitionVersion: 0,
      data: { x: undefined },
      nodes: [{ id: 'a', data: null }, { id: 'a', data: null }, { id: '', data: null }],
      edges: [{ id: 'e', source: 'a', target: 'zzz', data: null }, { id: 'e', source: 'q', target: 'a', data: null }],
    };
    let caught: unknown;
    try {
      compileGraph(echoType, value as unknown as GraphDefinition);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GraphValidationError);
    const error = caught as GraphValidationError;
    expect(codesAndPaths(error.issues)).toEqual([
      ['INVALID_ID', '/id'],
      ['INVALID_VERSION', '/definitionVersion'],
      ['INVALID_JSON_VALUE', '/data/x'],
      ['DUPLICATE_NODE_ID', '/nodes/1/id'],
      ['INVALID_ID', '/nodes/2/id'],
      ['UNKNOWN_TARGET_NODE', '/edges/0/target'],
      ['DUPLICATE_EDGE_ID', '/edges/1/id'],
      ['UNKNOWN_SOURCE_NODE', '/edges/1/source'],
    ]);
    expect(error.code).toBe('INVALID_ID');
    expect(error.details).toEqual({ issues: error.issues });
    expect(isRoundtableError(error, 'INVALID_ID')).toBe(true);
    expect(isGraphValidationError(error, 'INVALID_ID')).toBe(true);
    expect(isGraphValidationError(error, 'INVALID_VERSION')).toBe(false);
    expect(error.message).toContain('/id');
    for (const issue of error.issues) expect(typeof issue.message).toBe('string');
  });

  it('has a code table with every code named by the spec', () => {
    expect(Object.keys(GraphErrorCodes).sort()).toEqual(
      [
        'INVALID_ID', 'DUPLICATE_NODE_ID', 'DUPLICATE_EDGE_ID', 'INVALID_VERSION', 'UNKNOWN_SOURCE_NODE', 'UNKNOWN_TARGET_NODE',
        'INVALID_JSON_VALUE', 'INVALID_DEFINITION', 'INVALID_GRAPH_TYPE', 'INVALID_GRAPH_COMMAND', 'INVALID_TEAM', 'RESULT_INVALID',
      ].sort(),
    );
    for (const [key, value] of Object.entries(GraphErrorCodes)) expect(value).toBe(key);
  });
});

describe('compileGraph: read-only definitions', () => {
  it('compiles an `as const` definition (read-only lists and data) and keeps its node ids', () => {
    const releaseTeam = {
      id: 'release-team',
      definitionVersion: 1,
      data: { task: 'Notes.', globalConcurrency: 1, maxTurnsPerMember: 2, communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }], tailMessages: 3 } },
      nodes: [
        { id: 'writer', data: { role: 'writer', brief: 'Draft.' } },
        { id: 'reviewer', data: { role: 'reviewer', brief: 'Review.', initialTurn: false } },
      ],
      edges: [],
    } as const;
    const graph = compileGraph(teamGraphType, releaseTeam);
    expectTypeOf(graph).toEqualTypeOf<CompiledGraph<TeamState, 'writer' | 'reviewer'>>();
    expect(graph.definition.value).toEqual(releaseTeam);
    const withEdge = { ...definition(), edges: [{ id: 'e', source: 'a', target: 'b', data: ['x', { y: [1] }] }] } as const;
    expect(compileGraph(echoType, withEdge).definition.value.edges).toEqual(withEdge.edges);
  });

  it('takes every Json as a ReadonlyJson, and read-only arrays only as ReadonlyJson', () => {
    expectTypeOf<Json>().toExtend<ReadonlyJson>();
    expectTypeOf<readonly ['a', 1]>().toExtend<ReadonlyJson>();
    expectTypeOf<readonly ['a', 1]>().not.toExtend<Json>();
    expectTypeOf<{ readonly when: Date }>().not.toExtend<ReadonlyJson>();
  });
});

describe('compileGraph: the frozen copy', () => {
  it('keeps a deep copy: later edits to the caller value change nothing', () => {
    const input = definition();
    const graph = compileGraph(echoType, input);
    const before = graph.definition.canonicalJson;
    input.nodes.push({ id: 'c', data: null });
    input.nodes[0]!.id = 'changed';
    (input.data as Record<string, Json>)['title'] = 'changed';
    (input.nodes[1]!.data as Record<string, Json>)['weight'] = 99;
    input.edges.length = 0;
    expect(graph.definition.value).toEqual(definition());
    expect(graph.definition.canonicalJson).toBe(before);
    expect(graph.definition.digest).toBe(digest(definition()));
  });

  it('hands the graph type the frozen copy, not the caller value', () => {
    const input = definition();
    let seen: GraphDefinition | undefined;
    const spy: GraphType<unknown> = { ...echoType, compile: (value) => ((seen = value), echoType.compile(value)) };
    const graph = compileGraph(spy, input);
    expect(seen).toBe(graph.definition.value);
    expect(seen).not.toBe(input);
    input.nodes.push({ id: 'c', data: null });
    expect(seen!.nodes).toHaveLength(2);
  });

  it('deep-freezes the copy', () => {
    const graph = compileGraph(echoType, definition());
    const value = graph.definition.value;
    for (const part of [value, value.data, value.nodes, value.nodes[0], value.nodes[1]!.data, value.edges, value.edges[0], value.edges[0]!.data]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => value.nodes.push({ id: 'c', data: null })).toThrow(TypeError);
    expect(() => {
      (value.nodes[1]!.data as Record<string, Json>)['weight'] = 3;
    }).toThrow(TypeError);
    expect(Object.isFrozen(graph)).toBe(true);
    expect(Object.isFrozen(graph.definition)).toBe(true);
  });

  it('records the canonical JSON and the core digest of the definition', () => {
    const input = definition({ data: { z: 1, a: [-0, 'é'] } });
    const graph = compileGraph(echoType, input);
    expect(graph.definition.canonicalJson).toBe(canonicalJson(input));
    expect(graph.definition.digest).toBe(digest(input));
    expect(graph.definition.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('copies a "__proto__" key as data, never as a prototype', () => {
    const data = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Json;
    const graph = compileGraph(echoType, definition({ data }));
    const copied = graph.definition.value.data as Record<string, Json>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(['__proto__', 'x']);
    expect(graph.definition.digest).toBe(digest(definition({ data })));
  });
});

describe('compileGraph: the graph type', () => {
  it('refuses a malformed graph type with INVALID_GRAPH_TYPE', () => {
    const bad: unknown[] = [
      null,
      'team',
      { version: 1, compile: echoType.compile },
      { kind: '', version: 1, compile: echoType.compile },
      { kind: 'x', version: 0, compile: echoType.compile },
      { kind: 'x', version: 1.5, compile: echoType.compile },
      { kind: 'x', version: 1 },
    ];
    for (const type of bad) {
      const issues = issuesOf(() => compileGraph(type as GraphType<unknown>, definition()));
      expect(issues[0]!.code).toBe('INVALID_GRAPH_TYPE');
    }
  });

  it('refuses compiled functions that are missing', () => {
    const partial: GraphType<unknown> = { kind: 'x', version: 1, compile: () => ({ initialState: () => null }) as never };
    const issues = issuesOf(() => compileGraph(partial, definition()));
    expect(codesAndPaths(issues)).toEqual([
      ['INVALID_GRAPH_TYPE', '/reduce'],
      ['INVALID_GRAPH_TYPE', '/decide'],
      ['INVALID_GRAPH_TYPE', '/describe'],
    ]);
    const badValidate: GraphType<unknown> = { ...echoType, compile: (value) => ({ ...echoType.compile(value), validateNodeResult: 3 as never }) };
    expect(codesAndPaths(issuesOf(() => compileGraph(badValidate, definition())))).toEqual([['INVALID_GRAPH_TYPE', '/validateNodeResult']]);
  });

  it('offers validateNodeResult only when the graph type has it, and passes it through', () => {
    expect(compileGraph(echoType, definition()).validateNodeResult).toBeUndefined();
    const issue = { code: 'RESULT_INVALID', path: '/x', message: 'no' };
    const calls: unknown[] = [];
    const checking: GraphType<unknown> = {
      ...echoType,
      compile: (value) => ({ ...echoType.compile(value), validateNodeResult: (nodeId, result) => (calls.push([nodeId, result]), result === 1 ? null : issue) }),
    };
    const graph = compileGraph(checking, definition());
    expect(graph.validateNodeResult?.('a', 1)).toBeNull();
    expect(graph.validateNodeResult?.('b', 2)).toEqual(issue);
    expect(calls).toEqual([['a', 1], ['b', 2]]);
  });
});

describe('compileGraph: reduce accepts exactly { type, version, payload }', () => {
  const graph = compileGraph(echoType, definition());
  const good: GraphEvent = { type: 'x', version: 1, payload: [] };

  it('passes a well-formed event to the graph type', () => {
    expect(graph.reduce(graph.initialState(), { type: 'x', version: 1, payload: { kind: 'pause', reason: 'r' } })).toEqual({ kind: 'pause', reason: 'r' });
    expect(graph.reduce(null, good)).toEqual([]);
  });

  const malformed: [string, unknown][] = [
    ['null', null],
    ['an array', []],
    ['a string', 'graph:node-completed'],
    ['no payload', { type: 'x', version: 1 }],
    ['an extra field', { ...good, eventId: 'e1' }],
    ['a numeric type', { type: 1, version: 1, payload: null }],
    ['a string version', { type: 'x', version: '1', payload: null }],
    ['a NaN version', { type: 'x', version: Number.NaN, payload: null }],
    ['an undefined payload', { type: 'x', version: 1, payload: undefined }],
    ['a function payload', { type: 'x', version: 1, payload: () => 1 }],
    ['a class instance payload', { type: 'x', version: 1, payload: new Date(0) }],
    ['an infinite payload', { type: 'x', version: 1, payload: Infinity }],
  ];
  it.each(malformed)('refuses an event with %s (INVALID_GRAPH_TYPE)', (_label, value) => {
    const issues = issuesOf(() => graph.reduce(graph.initialState(), value as GraphEvent));
    expect(issues.map((issue) => issue.code)).toEqual(['INVALID_GRAPH_TYPE']);
  });
});

describe('compileGraph: decide returns a valid command list', () => {
  const graph = compileGraph(echoType, definition());
  const decideWith = (commands: unknown) => graph.decide(commands);
  const dispatch = (nodeId: string, position: string, input: unknown = null) => ({ kind: 'dispatch', nodeId, position, input });

  it('accepts dispatches only, an empty list, or exactly one terminal command', () => {
    const valid: unknown[] = [
      [],
      [dispatch('a', 'p1'), dispatch('b', 'p2', { x: [1] }), dispatch('a', 'p3')],
      [{ kind: 'pause', reason: '' }],
      [{ kind: 'complete', output: { ok: true } }],
      [{ kind: 'fail', code: 'X', message: 'why' }],
    ];
    for (const commands of valid) expect(decideWith(commands)).toEqual(commands);
  });

  const invalid: [string, unknown, string][] = [
    ['not an array', { kind: 'pause', reason: 'r' }, ''],
    ['a null command', [null], '/0'],
    ['an unknown kind', [{ kind: 'wait' }], '/0'],
    ['two dispatches with one position', [dispatch('a', 'p'), dispatch('b', 'p')], '/1/position'],
    ['an undeclared node', [dispatch('zzz', 'p')], '/0/nodeId'],
    ['an empty position', [dispatch('a', '')], '/0/position'],
    ['a numeric position', [dispatch('a', 1 as never)], '/0/position'],
    ['an undefined input', [{ kind: 'dispatch', nodeId: 'a', position: 'p', input: undefined }], '/0/input'],
    ['a non-JSON input', [dispatch('a', 'p', { x: [Number.NaN] })], '/0/input'],
    ['a missing input', [{ kind: 'dispatch', nodeId: 'a', position: 'p' }], '/0'],
    ['an extra field', [{ ...dispatch('a', 'p'), note: 1 }], '/0'],
    ['two terminal commands', [{ kind: 'pause', reason: 'r' }, { kind: 'fail', code: 'X', message: 'm' }], ''],
    ['a terminal command with a dispatch', [dispatch('a', 'p'), { kind: 'complete', output: null }], ''],
    ['a numeric pause reason', [{ kind: 'pause', reason: 1 }], '/0/reason'],
    ['a non-JSON output', [{ kind: 'complete', output: new Map() }], '/0/output'],
    ['a missing output', [{ kind: 'complete' }], '/0'],
    ['a numeric fail code', [{ kind: 'fail', code: 1, message: 'm' }], '/0/code'],
    ['an empty fail code', [{ kind: 'fail', code: '', message: 'm' }], '/0/code'],
    ['a missing fail message', [{ kind: 'fail', code: 'X' }], '/0'],
    ['a numeric fail message', [{ kind: 'fail', code: 'X', message: null }], '/0/message'],
  ];
  it.each(invalid)('refuses %s (INVALID_GRAPH_COMMAND)', (_label, commands, path) => {
    const issues = issuesOf(() => decideWith(commands));
    expect(issues.every((issue) => issue.code === 'INVALID_GRAPH_COMMAND')).toBe(true);
    expect(issues.map((issue) => issue.path)).toContain(path);
  });

  it('judges JSON exactly like @roundtable/core, also for frozen values reused deeper', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything({ withMap: true, withSet: true, withDate: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: true })), (value) => {
        const outcome = () => decideWith([{ kind: 'complete', output: value }]);
        if (isJson(value)) expect(outcome).not.toThrow();
        else expect(outcome).toThrow(GraphValidationError);
      }),
    );
    let deep: Json = 0;
    for (let level = 0; level < 256; level++) deep = Object.freeze([deep]) as Json;
    expect(isJson(deep)).toBe(true);
    expect(() => decideWith([{ kind: 'complete', output: deep }])).not.toThrow();
    expect(isJson([deep])).toBe(false);
    expect(() => decideWith([{ kind: 'complete', output: [deep] }])).toThrow(GraphValidationError);
    const accessor = Object.defineProperty({}, 'x', { get: () => 1, enumerable: true });
    const symbolKey = { [Symbol('s')]: 1 };
    const hidden = Object.defineProperty({}, 'x', { value: 1, enumerable: false });
    const extraArrayField = Object.assign([1], { extra: 1 });
    const sparse: unknown[] = [];
    sparse[0] = 1;
    sparse[2] = 3;
    for (const value of [accessor, symbolKey, hidden, extraArrayField, sparse, { ['\ud800']: 1 }, ['\udc00']]) {
      expect(isJson(value)).toBe(false);
      expect(() => decideWith([{ kind: 'complete', output: value }])).toThrow(GraphValidationError);
    }
  });
});
