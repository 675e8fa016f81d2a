import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  GraphCommandSchema,
  GraphDefinitionSchema,
  GraphEventSchema,
  TeamDefinitionSchema,
  TeamDispatchInputSchema,
  TeamGraphResultSchema,
  TeamMessageSchema,
  TeamTurnResultSchema,
} from './index.js';
import { compileTeam, dispatchBatch, events, post, seedTeam } from './__fixtures__/teamFixtures.js';

describe('zod schemas', () => {
  it('describe what the graph produces: dispatch inputs, messages, commands and the final result', () => {
    const graph = compileTeam(seedTeam());
    let { state, dispatched } = dispatchBatch(graph, graph.initialState());
    expect(GraphCommandSchema.safeParse(dispatched[0]).success).toBe(true);
    state = graph.reduce(state, events.completed('writer', 1, { summary: 'draft', data: { v: 1 }, posts: [post('review', 'hi', ['reviewer'])] }));
    ({ state, dispatched } = dispatchBatch(graph, state));
    expect(TeamDispatchInputSchema.parse(dispatched[0]!.input)).toEqual(dispatched[0]!.input);
    const message = (dispatched[0]!.input as { messages: unknown[] }).messages[0];
    expect(TeamMessageSchema.parse(message)).toEqual(message);
    state = graph.reduce(state, events.completed('reviewer', 1, { summary: 'ok' }));
    const [complete] = graph.decide(state);
    expect(complete?.kind).toBe('complete');
    expect(GraphCommandSchema.safeParse(complete).success).toBe(true);
    expect(TeamGraphResultSchema.safeParse(complete?.kind === 'complete' ? complete.output : null).success).toBe(true);
  });

  it('accept valid definitions and refuse the problems compileGraph refuses', () => {
    expect(GraphDefinitionSchema.safeParse(seedTeam()).success).toBe(true);
    expect(TeamDefinitionSchema.safeParse(seedTeam()).success).toBe(true);
    const duplicate = { ...seedTeam(), nodes: [seedTeam().nodes[0], seedTeam().nodes[0]] };
    expect(GraphDefinitionSchema.safeParse(duplicate).success).toBe(false);
    const dangling = { ...seedTeam(), edges: [{ id: 'e', source: 'writer', target: 'ghost', data: null }] };
    expect(GraphDefinitionSchema.safeParse(dangling).success).toBe(false);
    expect(TeamDefinitionSchema.safeParse({ ...seedTeam(), edges: [{ id: 'e', source: 'writer', target: 'reviewer', data: null }] }).success).toBe(false);
    expect(TeamDefinitionSchema.safeParse({ ...seedTeam(), data: { ...seedTeam().data, tailMessages: 0 } }).success).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(GraphDefinitionSchema.safeParse({ ...seedTeam(), data: cyclic }).success).toBe(false);
    expect(GraphEventSchema.safeParse({ type: 'x', version: 1, payload: null }).success).toBe(true);
    expect(GraphEventSchema.safeParse({ type: 'x', version: 1, payload: null, extra: 1 }).success).toBe(false);
  });

  it('convert to JSON Schema (result contracts digest it)', () => {
    for (const schema of [TeamTurnResultSchema, TeamDefinitionSchema, TeamDispatchInputSchema, TeamGraphResultSchema, GraphCommandSchema]) {
      expect(() => z.toJSONSchema(schema)).not.toThrow();
    }
    const json = z.toJSONSchema(TeamTurnResultSchema) as { required?: string[]; properties?: Record<string, unknown> };
    expect(json.required).toEqual(['summary']);
    expect(Object.keys(json.properties ?? {})).toEqual(['summary', 'data', 'posts']);
  });
});
