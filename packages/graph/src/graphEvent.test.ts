import type { Json } from '@roundtable/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GRAPH_EVENT_PAYLOAD_FIELDS } from './graphEvent.js';
import { GRAPH_EVENT_VERSION, GraphEventSchema, GraphEventTypes, graphEventProblem } from './index.js';
import { mutated } from './__fixtures__/mutations.js';

/** A valid payload of each standard event type. */
const validPayloads: Record<string, Json> = {
  [GraphEventTypes.RUN_STARTED]: { definition: { kind: 'team', typeVersion: 1, digest: 'sha256:0', value: null } },
  [GraphEventTypes.NODE_DISPATCHED]: { nodeId: 'a', position: 'team/a/1' },
  [GraphEventTypes.NODE_ATTEMPT_STARTED]: { nodeId: 'a', position: 'team/a/1', attempt: 2, retrySafe: false },
  [GraphEventTypes.NODE_COMPLETED]: { nodeId: 'a', position: 'team/a/1', result: { summary: 's' } },
  [GraphEventTypes.NODE_FAILED]: { nodeId: 'a', position: 'team/a/1', code: 'EFFECT_FAILED', message: 'boom' },
  [GraphEventTypes.NODE_PAUSED]: { nodeId: 'a', position: 'team/a/1', reason: 'approval', request: [1] },
  [GraphEventTypes.NODE_RESUMED]: { nodeId: 'a', position: 'team/a/1', value: null },
  [GraphEventTypes.NODE_RETRIED]: { nodeId: 'a', position: 'team/a/1', attempt: 1, code: 'EFFECT_FAILED', message: 'boom' },
};

/** Events as the fold sees them (a string type, a finite version, a JSON payload), valid and mutated. */
const recordedEvent = fc
  .tuple(
    fc.constantFrom(...Object.keys(validPayloads), 'graph:node-unknown', 'graph:', 'host:note', 'x'),
    fc.oneof({ weight: 4, arbitrary: fc.constant(GRAPH_EVENT_VERSION) }, { weight: 1, arbitrary: fc.constantFrom(0, 2, 1.5, -1) }),
  )
  .chain(([type, version]) =>
    fc.oneof(
      { weight: 4, arbitrary: mutated(validPayloads[type] ?? { note: 'n' }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    ).map((payload) => ({ type, version, payload })),
  )
  // The mutations only make JSON values, but a JSON round trip keeps the domain exact.
  .map((event) => JSON.parse(JSON.stringify(event)) as { type: string; version: number; payload: Json });

describe('GraphEventSchema and graphEventProblem', () => {
  it('give every event the same verdict, valid or mutated', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(recordedEvent, (event) => {
        const schemaAccepts = GraphEventSchema.safeParse(event).success;
        expect(schemaAccepts).toBe(graphEventProblem(event) === null);
        if (schemaAccepts) accepted++;
        else refused++;
      }),
      { numRuns: 2000 },
    );
    // Both verdicts occur often enough for the comparison to mean something.
    expect(accepted).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  });

  it('accept every valid standard event and refuse each broken field', () => {
    for (const [type, payload] of Object.entries(validPayloads)) {
      const event = { type, version: 1, payload };
      expect(graphEventProblem(event)).toBeNull();
      expect(GraphEventSchema.safeParse(event).success).toBe(true);
      for (const broken of [{ ...event, version: 2 }, { ...event, payload: { ...(payload as object), extra: 1 } }, { ...event, payload: null }]) {
        expect(graphEventProblem(broken)).not.toBeNull();
        expect(GraphEventSchema.safeParse(broken).success).toBe(false);
      }
    }
    const started = { type: GraphEventTypes.NODE_ATTEMPT_STARTED, version: 1, payload: { nodeId: 'a', position: ' x', attempt: 1.5, retrySafe: 'no' } };
    expect(GraphEventSchema.safeParse(started).error?.issues.map((issue) => issue.path.join('/'))).toEqual(['payload/position', 'payload/attempt', 'payload/retrySafe']);
    expect(GraphEventSchema.safeParse({ type: 'graph:node-unknown', version: 1, payload: {} }).success).toBe(false);
    expect(GraphEventSchema.safeParse({ type: 'host:note', version: 7, payload: 'anything' }).success).toBe(true);
  });

  it('share one table of payload fields, one entry per standard event type', () => {
    expect(Object.keys(GRAPH_EVENT_PAYLOAD_FIELDS).sort()).toEqual(Object.values(GraphEventTypes).sort());
    for (const [type, payload] of Object.entries(validPayloads)) expect(GRAPH_EVENT_PAYLOAD_FIELDS[type]).toEqual(Object.keys(payload as object));
  });
});
