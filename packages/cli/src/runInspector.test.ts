import { describe, expect, it } from 'vitest';
import type { Json } from '@roundtable/core';
import type { StoredEvent } from '@roundtable/storage';
import { RunInspector } from './runInspector.js';

let revision = 0;
function stored(type: string, payload: Json, second: number): StoredEvent {
  revision++;
  return {
    envelopeVersion: 1,
    streamId: 'run-1',
    revision,
    eventId: `e-${revision}`,
    type,
    version: 1,
    timestamp: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
    correlationId: 'run-1',
    causationId: null,
    payload,
  };
}

describe('RunInspector', () => {
  it('builds the attempt timeline of any graph kind from the generic events: retries, crash recovery, pauses', () => {
    revision = 0;
    const events = [
      stored('graph:run-started', { definition: { kind: 'pipeline', typeVersion: 3, digest: 'sha256:x', value: { id: 'etl', definitionVersion: 2, nodes: [{ id: 'extract' }, { id: 'load' }] } } }, 0),
      stored('graph:node-dispatched', { nodeId: 'extract', position: 'p/extract' }, 1),
      stored('graph:node-attempt-started', { nodeId: 'extract', position: 'p/extract', attempt: 1, retrySafe: true }, 2),
      stored('graph:node-retried', { nodeId: 'extract', position: 'p/extract', attempt: 1, code: 'TIMEOUT', message: 'too slow' }, 5),
      stored('graph:node-attempt-started', { nodeId: 'extract', position: 'p/extract', attempt: 2, retrySafe: true }, 6),
      stored('graph:node-resumed', { nodeId: 'extract', position: 'p/extract', value: null }, 9),
      stored('graph:node-attempt-started', { nodeId: 'extract', position: 'p/extract', attempt: 3, retrySafe: true }, 10),
      stored('graph:node-completed', { nodeId: 'extract', position: 'p/extract', result: { rows: 3 } }, 12),
      stored('host:note', { text: 'not a graph event' }, 13),
      stored('graph:node-dispatched', { nodeId: 'load', position: 'p/load' }, 14),
      stored('graph:node-attempt-started', { nodeId: 'load', position: 'p/load', attempt: 1, retrySafe: false }, 15),
      stored('graph:node-paused', { nodeId: 'load', position: 'p/load', reason: 'approve the load', request: { rows: 3 } }, 16),
    ];
    const inspector = new RunInspector('run-1');
    for (const event of events) inspector.apply(event);
    inspector.endOfRead();
    const report = inspector.report();
    expect(report.definition).toEqual({ id: 'etl', kind: 'pipeline', typeVersion: 3, digest: 'sha256:x', definitionVersion: 2, members: ['extract', 'load'] });
    expect(report.turns).toBe(2);
    expect(report.revision).toBe(12);
    expect(report.team).toBeNull();
    expect(report.attempts.map((attempt) => [attempt.position, attempt.attempt, attempt.status, attempt.code, attempt.durationMs])).toEqual([
      ['p/extract', 1, 'retried', 'TIMEOUT', 3000],
      ['p/extract', 2, 'resumed', null, 3000],
      ['p/extract', 3, 'completed', null, 2000],
      ['p/load', 1, 'paused', null, 1000],
    ]);
    expect(report.attempts[0]!.message).toBe('too slow');
    expect(report.attempts[3]).toMatchObject({ reason: 'approve the load', request: { rows: 3 }, dispatchedAt: '2026-01-01T00:00:14.000Z', startedAt: '2026-01-01T00:00:15.000Z' });
    // No strict fold is known for this kind: the status says so instead of guessing.
    expect(report.status).toEqual({ kind: 'unknown', text: 'unknown pipeline v3', code: 'UNKNOWN_GRAPH_KIND' });
    expect(report.problem).toBeNull();
  });

  it('keeps the first problem with its revision and stops folding there', () => {
    revision = 0;
    const inspector = new RunInspector('run-1');
    inspector.apply(stored('graph:node-dispatched', { nodeId: 'a', position: 'p' }, 0));
    inspector.apply(stored('graph:run-started', { definition: { kind: 'team', typeVersion: 1, digest: 'x', value: {} } }, 1));
    const report = inspector.report();
    expect(report.problem).toMatchObject({ revision: 1, code: 'INVALID_EVENT' });
    expect(report.status.kind).toBe('unreadable');
    expect(report.revision).toBe(2);
    inspector.fail(Object.assign(new Error('boom'), {}));
    expect(inspector.report().problem).toMatchObject({ revision: 1, code: 'INVALID_EVENT' });
    expect(inspector.damage).toMatchObject({ revision: 3, code: 'UNEXPECTED' });
  });
});
