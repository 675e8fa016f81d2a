import { describe, expect, it } from 'vitest';
import { pairTeam } from '@roundtable/test-utils';
import { z } from 'zod';
import { digest, isRoundtableError } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition } from '@roundtable/graph';
import { ResultContractError, defineResultContract, teamResultContract } from './index.js';
import packageJson from '../package.json' with { type: 'json' };

const Summary = z.object({ summary: z.string().min(3), score: z.number().int().default(0) });

function refusal(run: () => unknown): ResultContractError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ResultContractError);
    return error as ResultContractError;
  }
  throw new Error('expected a refusal');
}

describe('defineResultContract', () => {
  it('exports the JSON Schema and records its digest', () => {
    const contract = defineResultContract({ name: 'summary', version: 2, schema: Summary });
    expect(contract.jsonSchema).toMatchObject({ type: 'object', properties: { summary: { type: 'string', minLength: 3 } } });
    expect(contract.record).toEqual({ name: 'summary', version: 2, schemaDigest: digest(contract.jsonSchema) });
    expect(defineResultContract({ name: 'other', version: 1, schema: Summary }).record.schemaDigest).toBe(contract.record.schemaDigest);
    expect(defineResultContract({ name: 'summary', version: 2, schema: Summary.extend({ extra: z.string() }) }).record.schemaDigest).not.toBe(contract.record.schemaDigest);
  });

  it('returns the parsed value', () => {
    const contract = defineResultContract({ name: 'summary', version: 1, schema: Summary });
    expect(contract.validate({ summary: 'fine' })).toEqual({ summary: 'fine', score: 0 });
  });

  it('refuses with RESULT_INVALID and every issue as a JSON pointer', () => {
    const contract = defineResultContract({ name: 'summary', version: 1, schema: Summary });
    const error = refusal(() => contract.validate({ summary: 'no', score: 1.5 }));
    expect(error.code).toBe('RESULT_INVALID');
    expect(isRoundtableError(error, 'RESULT_INVALID')).toBe(true);
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['/score', '/summary']);
  });

  it('refuses a bad definition with INVALID_CONTRACT', () => {
    expect(refusal(() => defineResultContract({ name: ' x', version: 1, schema: Summary })).code).toBe('INVALID_CONTRACT');
    expect(refusal(() => defineResultContract({ name: 'x', version: 0, schema: Summary })).code).toBe('INVALID_CONTRACT');
    expect(refusal(() => defineResultContract({ name: 'x', version: 1, schema: z.date() })).code).toBe('INVALID_CONTRACT');
  });
});

describe('teamResultContract', () => {
  const definition: TeamDefinition = {
    id: 'team',
    definitionVersion: 1,
    data: {
      task: 't',
      globalConcurrency: 1,
      maxTurnsPerMember: 2,
      communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }, { id: 'private', members: ['reviewer', 'lead'] }], tailMessages: 3 },
    },
    nodes: [
      { id: 'writer', data: { role: 'w', brief: 'b' } },
      { id: 'reviewer', data: { role: 'r', brief: 'b' } },
      { id: 'lead', data: { role: 'l', brief: 'b' } },
    ],
    edges: [],
  };
  const graph = compileGraph(teamGraphType, definition);

  it('accepts a valid turn result', () => {
    const result = { summary: 's', posts: [{ roomId: 'review', text: 'hi', mentions: ['reviewer', 'writer'] }] };
    expect(teamResultContract(graph, 'writer').validate(result)).toEqual(result);
  });

  it('refuses a bad shape before the membership check', () => {
    for (const bad of [null, [], 'answer', {}, { summary: 1 }, { summary: 's', posts: {} }]) {
      expect(refusal(() => teamResultContract(graph, 'writer').validate(bad)).code).toBe('RESULT_INVALID');
    }
  });

  it('reuses the compiled membership check', () => {
    const contract = teamResultContract(graph, 'writer');
    const outside = refusal(() => contract.validate({ summary: 's', posts: [{ roomId: 'private', text: 'x', mentions: [] }] }));
    const graphIssue = graph.validateNodeResult!('writer', { summary: 's', posts: [{ roomId: 'private', text: 'x', mentions: [] }] });
    expect(outside.issues).toEqual([graphIssue]);
    expect(refusal(() => contract.validate({ summary: 's', posts: [{ roomId: 'review', text: 'x', mentions: ['lead'] }] })).code).toBe('RESULT_INVALID');
  });

  it('needs a team graph and a declared member', () => {
    expect(refusal(() => teamResultContract(graph, 'ghost')).code).toBe('INVALID_CONTRACT');
  });
});

describe('teamResultContract and literal definitions', () => {
  it('checks the member id at compile time when the definition is a literal, and always at run time', () => {
    const literal = compileGraph(teamGraphType, pairTeam());
    expect(teamResultContract(literal, 'lead').validate({ summary: 'ok' })).toEqual({ summary: 'ok' });
    // @ts-expect-error "Lead" is not a member id of this team
    const error = refusal(() => teamResultContract(literal, 'Lead'));
    expect(error.code).toBe('INVALID_CONTRACT');
  });
});

describe('zod', () => {
  it('is a peer dependency (^4), so contracts are checked against the caller\'s zod', () => {
    const manifest: { peerDependencies?: Record<string, string>; dependencies?: Record<string, string> } = packageJson;
    expect(manifest.peerDependencies?.['zod']).toBe('^4');
    expect(manifest.dependencies?.['zod']).toBeUndefined();
  });
});
