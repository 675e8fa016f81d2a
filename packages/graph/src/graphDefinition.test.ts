import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import packageJson from '../package.json' with { type: 'json' };
import { GraphDefinitionSchema, TeamDefinitionSchema, compileGraph, isGraphValidationError, teamGraphType, validateGraphDefinition } from './index.js';
import type { GraphDefinition, GraphValidationIssue } from './index.js';
import { mutated } from './__fixtures__/mutations.js';
import { seedTeam } from './__fixtures__/teamFixtures.js';

/** The seed team with one edge, so edge rules are exercised too. */
const withEdge = { ...seedTeam(), edges: [{ id: 'e', source: 'writer', target: 'reviewer', data: { x: [1] } }] };

/** Mutated definitions as JSON text would give them (the schema reads zod's plain copy). */
const candidates = (value: unknown, keep: number) => mutated(value, keep).map((candidate) => JSON.parse(JSON.stringify(candidate ?? null)) as unknown);

function teamIssues(definition: unknown): GraphValidationIssue[] {
  try {
    compileGraph(teamGraphType, definition as GraphDefinition);
    return [];
  } catch (error) {
    if (!isGraphValidationError(error)) throw error;
    return error.issues;
  }
}

function codesAndPaths(issues: readonly GraphValidationIssue[]): [string, string][] {
  return issues.map((issue) => [issue.code, issue.path]);
}

describe('the definition schemas are the validators', () => {
  it('GraphDefinitionSchema accepts exactly the definitions validateGraphDefinition accepts', () => {
    let refused = 0;
    fc.assert(
      fc.property(candidates(withEdge, 8), (value) => {
        const issues = validateGraphDefinition(value);
        expect(GraphDefinitionSchema.safeParse(value).success).toBe(issues.length === 0);
        if (issues.length > 0) refused++;
      }),
      { numRuns: 1000 },
    );
    // Both verdicts occur often (refused is 860-910 of 1,000 over random seeds: the bounds sit
    // far outside that spread, so a seed cannot fail them; a generator that lost a verdict would).
    expect(refused).toBeGreaterThan(50);
    expect(refused).toBeLessThan(950);
  });

  it('TeamDefinitionSchema accepts exactly the definitions compileGraph(teamGraphType) accepts', () => {
    let accepted = 0;
    fc.assert(
      fc.property(candidates(seedTeam(), 30), (value) => {
        const issues = teamIssues(value);
        expect(TeamDefinitionSchema.safeParse(value).success).toBe(issues.length === 0);
        if (issues.length === 0) accepted++;
      }),
      { numRuns: 1000 },
    );
    // Both verdicts occur often (accepted is 100-140 of 1,000 over random seeds).
    expect(accepted).toBeGreaterThan(50);
    expect(accepted).toBeLessThan(950);
  });

  it('reports the cross-field rules even beside a field that stops zod early', () => {
    // zod skips an object's refinements after a non-integer number or a too-long list.
    const definition = { ...withEdge, definitionVersion: 1.5, nodes: [withEdge.nodes[0], withEdge.nodes[0]] };
    expect(codesAndPaths(validateGraphDefinition(definition))).toEqual([
      ['INVALID_VERSION', '/definitionVersion'],
      ['DUPLICATE_NODE_ID', '/nodes/1/id'],
      ['UNKNOWN_TARGET_NODE', '/edges/0/target'],
    ]);
    const communication = { rooms: [{ id: 'r', members: ['writer'] }, { id: 'r', members: ['ghost'] }], tailMessages: 1.5 };
    const team = { ...seedTeam(), data: { ...seedTeam().data, communication } };
    expect(codesAndPaths(teamIssues(team))).toEqual([
      ['INVALID_TEAM', '/data/communication/rooms/1/id'],
      ['INVALID_TEAM', '/data/communication/rooms/1/members/0'],
      ['INVALID_TEAM', '/data/communication/tailMessages'],
    ]);
  });

  it('names each problem in words', () => {
    const [missing] = validateGraphDefinition({ ...withEdge, data: undefined });
    expect(missing).toEqual({ code: 'INVALID_DEFINITION', path: '/data', message: 'Field "data" is required (use null for no data).' });
    const [notJson] = validateGraphDefinition({ ...withEdge, data: { when: new Date(0) } });
    expect(notJson).toEqual({ code: 'INVALID_JSON_VALUE', path: '/data/when', message: 'Found a Date, which is not JSON.' });
    const [unknown] = validateGraphDefinition({ ...withEdge, extra: 1 });
    expect(unknown).toEqual({ code: 'INVALID_DEFINITION', path: '/extra', message: 'Unknown field "extra".' });
    const [dangling] = validateGraphDefinition({ ...withEdge, edges: [{ ...withEdge.edges[0], source: 'ghost' }] });
    expect(dangling).toEqual({ code: 'UNKNOWN_SOURCE_NODE', path: '/edges/0/source', message: 'Edge source "ghost" is not a declared node.' });
    const [twice] = teamIssues({ ...seedTeam(), data: { ...seedTeam().data, communication: { rooms: [{ id: 'r', members: ['writer', 'writer'] }], tailMessages: 1 } } });
    expect(twice).toEqual({ code: 'INVALID_TEAM', path: '/data/communication/rooms/0/members/1', message: 'Member "writer" is listed twice in this room.' });
  });
});

describe('zod is a peer dependency', () => {
  it('is declared as a peer (^4), not a dependency, so the caller\'s zod is the one used', () => {
    const manifest: { peerDependencies?: Record<string, string>; dependencies?: Record<string, string> } = packageJson;
    expect(manifest.peerDependencies?.['zod']).toBe('^4');
    expect(manifest.dependencies?.['zod']).toBeUndefined();
  });

  it('exports schemas that compose with the caller\'s own', () => {
    const Envelope = z.object({ definition: GraphDefinitionSchema, note: z.string() });
    expect(Envelope.safeParse({ definition: withEdge, note: 'n' }).success).toBe(true);
    expect(GraphDefinitionSchema instanceof z.ZodType).toBe(true);
  });
});
