import { describe, expect, it } from 'vitest';
import { thrown } from '@roundtable/test-utils';
import { AttemptStatuses, GraphEventTypes, RunRecordFolder, RunStatuses, compileGraph, isEndStep, isGraphExecutionError, nextStep, runStatusOf } from './index.js';
import type { GraphType, NextStep } from './index.js';
import { attemptSteps, foldAll, recordOf } from './__fixtures__/recordFixtures.js';
import { compileTeam, team } from './__fixtures__/teamFixtures.js';

/** Two members dispatched in one batch of two (a then b), one turn each. */
const pair = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }], globalConcurrency: 2, maxTurnsPerMember: 1 }));
const a1 = attemptSteps('a', 'team/a/1');
const b1 = attemptSteps('b', 'team/b/1');

function kinds(step: NextStep): unknown {
  if (step.kind !== 'attempts') return step.kind;
  return { ready: step.ready.map((attempt) => [attempt.position, attempt.status]), inFlight: step.inFlight.map((attempt) => attempt.position), positions: step.positions };
}

describe('nextStep(graph, folder): what is next in a folded run', () => {
  it('is start for an empty record and the dispatch batch decide returns after the run start', () => {
    expect(nextStep(pair, new RunRecordFolder(pair))).toEqual({ kind: 'start' });
    const step = nextStep(pair, foldAll(pair, recordOf(pair)));
    expect(step.kind).toBe('dispatch');
    expect(step.kind === 'dispatch' && step.batch.map((command) => command.position)).toEqual(['team/a/1', 'team/b/1']);
  });

  it('lists ready attempts (dispatched, resumed, retried) apart from those in flight, in dispatch order', () => {
    expect(kinds(nextStep(pair, foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched))))).toEqual({
      ready: [['team/a/1', 'dispatched'], ['team/b/1', 'dispatched']],
      inFlight: [],
      positions: ['team/a/1', 'team/b/1'],
    });
    expect(kinds(nextStep(pair, foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(1), b1.started(1), b1.retried(1)))))).toEqual({
      ready: [['team/b/1', 'resumed']],
      inFlight: ['team/a/1'],
      positions: ['team/a/1', 'team/b/1'],
    });
    expect(kinds(nextStep(pair, foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(1), a1.paused(), a1.resumed('go')))))).toMatchObject({ ready: [['team/a/1', 'resumed'], ['team/b/1', 'dispatched']] });
  });

  it('asks decide only once no attempt is open but paused ones: the pause names the first paused member in node order', () => {
    const folder = foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(1), b1.started(1), b1.paused('why', { ask: 'b' }), a1.paused('other', { ask: 'a' })));
    const step = nextStep(pair, folder);
    expect(step).toMatchObject({ kind: 'pause', position: 'team/a/1', request: { ask: 'a' } });
    expect(isEndStep(step)).toBe(true);
  });

  it('after a cancel: attempts while a started one has no outcome (nothing ready, a paused one not in flight), then cancelled with the reason and the revision of the cancel', () => {
    const cancel = (reason: string): [string, { reason: string }] => [GraphEventTypes.RUN_CANCELLED, { reason }];
    // a is running, b paused: the cancel at revision 7 leaves only a in flight.
    const running = recordOf(pair, a1.dispatched, b1.dispatched, a1.started(1), b1.started(1), b1.paused('why'), cancel('stop'));
    expect(kinds(nextStep(pair, foldAll(pair, running)))).toEqual({ ready: [], inFlight: ['team/a/1'], positions: ['team/a/1'] });
    // Its outcome comes in: cancelled, whatever decide would dispatch now.
    const ended = nextStep(pair, foldAll(pair, [...running, ...recordOf(pair, a1.completed()).slice(1).map((event) => ({ ...event, revision: running.length + 1, eventId: 'late' }))]));
    expect(ended).toEqual({ kind: 'cancelled', reason: 'stop', revision: 7 });
    expect(isEndStep(ended)).toBe(true);
    expect(runStatusOf(ended)).toBe('cancelled');
    // A dispatched position that never started is not in flight: a cancel ends the run at once.
    expect(nextStep(pair, foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, cancel('early'))))).toEqual({ kind: 'cancelled', reason: 'early', revision: 4 });
  });

  it('ends with fail and every recorded failure in node order, or with complete', () => {
    const failed = nextStep(pair, foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(1), b1.started(1), b1.failed('DENIED', 'no b'), a1.failed('TIMEOUT', 'slow'))));
    expect(failed).toMatchObject({ kind: 'fail', failures: [{ memberId: 'a', position: 'team/a/1', code: 'TIMEOUT', message: 'slow' }, { memberId: 'b', position: 'team/b/1', code: 'DENIED', message: 'no b' }] });
    const complete = nextStep(pair, foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(1), b1.started(1), a1.completed(), b1.completed())));
    expect(complete.kind).toBe('complete');
    expect(isEndStep({ kind: 'start' })).toBe(false);
  });

  it('is EMPTY_DECISION when decide returns nothing and DUPLICATE_POSITION when it dispatches a position again', () => {
    const commands: { value: unknown[] } = { value: [] };
    const type: GraphType<number> = {
      kind: 'scripted',
      version: 1,
      compile: () => ({ initialState: () => 0, reduce: (state) => state + 1, decide: () => commands.value as never, describe: () => ({ kind: 'scripted' }) }),
    };
    const graph = compileGraph(type, { id: 'g', definitionVersion: 1, data: null, nodes: [{ id: 'a', data: null }], edges: [] });
    const once = [{ kind: 'dispatch', nodeId: 'a', position: 'p', input: null }];
    expect(isGraphExecutionError(thrown(() => nextStep(graph, foldAll(graph, recordOf(graph)))), 'EMPTY_DECISION')).toBe(true);
    commands.value = once;
    const folder = foldAll(graph, recordOf(graph, [GraphEventTypes.NODE_DISPATCHED, { nodeId: 'a', position: 'p' }], [GraphEventTypes.NODE_ATTEMPT_STARTED, { nodeId: 'a', position: 'p', attempt: 1, retrySafe: false }], [GraphEventTypes.NODE_COMPLETED, { nodeId: 'a', position: 'p', result: null }]));
    expect(isGraphExecutionError(thrown(() => nextStep(graph, folder)), 'DUPLICATE_POSITION')).toBe(true);
  });
});

describe('runStatusOf: one status vocabulary', () => {
  it('names the status of every next step and every result kind with RunStatuses', () => {
    const kinds = ['start', 'attempts', 'dispatch', 'complete', 'fail', 'pause', 'waiting'] as const;
    expect(kinds.map((kind) => runStatusOf({ kind }))).toEqual(['running', 'waiting', 'running', 'complete', 'failed', 'paused', 'waiting']);
    for (const kind of kinds) expect(RunStatuses).toContain(runStatusOf({ kind }));
    expect(AttemptStatuses).toEqual(['dispatched', 'started', 'paused', 'resumed', 'retried', 'completed', 'failed']);
  });
});
