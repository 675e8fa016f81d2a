import { describe, expect, it } from 'vitest';
import type { Json } from '@roundtable/core';
import { GraphEventTypes, RunRecordFolder, compileGraph, isGraphExecutionError, isGraphValidationError, runStartedPayload } from './index.js';
import type { GraphValidationError } from './index.js';
import type { GraphType, RecordedEvent } from './index.js';
import { attemptSteps, foldAll, recordOf, refusal } from './__fixtures__/recordFixtures.js';
import type { Step } from './__fixtures__/recordFixtures.js';
import { compileTeam, team } from './__fixtures__/teamFixtures.js';

/** One member, one turn, no rooms. */
const graph = compileTeam(team({ members: [{ id: 'a' }], rooms: null, maxTurnsPerMember: 1 }));
const position = 'team/a/1';
const a = attemptSteps('a', position);
const { dispatched, started, retried } = a;

/** Two members dispatched in one batch of two (a then b), two turns each, in room `all`. */
const pair = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }], globalConcurrency: 2, maxTurnsPerMember: 2 }));
const a1 = attemptSteps('a', 'team/a/1');
const b1 = attemptSteps('b', 'team/b/1');

const host = (payload: Json = { note: 'hi' }, version = 7): Step => ['host:note', payload, version];

describe('the fold and graph:node-retried (SPEC 11.4)', () => {
  it('keeps the member in flight, in the resumed-not-restarted state, with the failure for the next attempt', () => {
    const folder = foldAll(graph, recordOf(graph, dispatched, started(1), retried(1)));
    expect(folder.openAttempt(position)).toMatchObject({ status: 'resumed', attempt: 1, retries: 1, previousFailure: { code: 'EFFECT_FAILED', message: 'attempt 1 failed' } });
    expect(folder.state.members[0]).toMatchObject({ status: 'in-flight', inFlight: position });
    const next = foldAll(graph, recordOf(graph, dispatched, started(1), retried(1), started(2), retried(2, 'TIMEOUT'), started(3)));
    expect(next.openAttempt(position)).toMatchObject({ status: 'started', attempt: 3, retries: 2, previousFailure: { code: 'TIMEOUT' } });
  });

  it('accepts it only after an attempt start without an outcome, for the attempt in flight', () => {
    expect(refusal(graph, recordOf(graph, dispatched, retried(1)))).toMatch(/no attempt in flight/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), retried(2)))).toMatch(/attempt must be 1/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), retried(1), retried(1)))).toMatch(/no attempt in flight/);
    const paused: Step = [GraphEventTypes.NODE_PAUSED, { nodeId: 'a', position, reason: 'ask', request: null }];
    expect(refusal(graph, recordOf(graph, dispatched, started(1), paused, retried(1)))).toMatch(/no attempt in flight/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), [GraphEventTypes.NODE_RETRIED, { nodeId: 'a', position, attempt: 1, code: 'X' }]))).toMatch(/exactly the fields/);
  });

  it('records every node-failed in record order', () => {
    const failed: Step = [GraphEventTypes.NODE_FAILED, { nodeId: 'a', position, code: 'DENIED', message: 'no' }];
    expect(foldAll(graph, recordOf(graph, dispatched, started(1), retried(1), started(2), failed)).failures).toEqual([{ nodeId: 'a', position, code: 'DENIED', message: 'no' }]);
  });
});

describe('RunRecordFolder.lookAhead().stateAfter: the state an append leads to (SPEC 11.1)', () => {
  it('belongs to one writer: a second lookAhead() is PROTOCOL', () => {
    const folder = foldAll(graph, recordOf(graph));
    folder.lookAhead();
    expect(() => folder.lookAhead()).toThrow(expect.objectContaining({ code: 'PROTOCOL' }));
  });

  it('returns the folded state without applying, and applying the same events reuses it', () => {
    const events = recordOf(graph, dispatched, started(1), [GraphEventTypes.NODE_COMPLETED, { nodeId: 'a', position, result: { summary: 'done' } }]);
    const folder = foldAll(graph, events.slice(0, 3));
    const before = folder.state;
    const outcome = events[3]!;
    const ahead = folder.lookAhead().stateAfter([outcome]);
    expect(folder.state).toBe(before);
    expect(folder.revision).toBe(3);
    expect(ahead).toEqual(foldAll(graph, events).state);
    folder.apply({ ...outcome });
    expect(folder.state).toBe(ahead);
    expect(folder.openAttempts().length).toBe(0);
  });

  it('reduces again when a different event is applied instead', () => {
    const failed: Step = [GraphEventTypes.NODE_FAILED, { nodeId: 'a', position, code: 'DENIED', message: 'no' }];
    const events = recordOf(graph, dispatched, started(1), failed);
    const folder = foldAll(graph, events.slice(0, 3));
    const ahead = folder.lookAhead().stateAfter([{ type: GraphEventTypes.NODE_COMPLETED, version: 1, payload: { nodeId: 'a', position, result: { summary: 'done' } } }]);
    folder.apply(events[3]!);
    expect(folder.state).not.toEqual(ahead);
    expect(folder.state).toEqual(foldAll(graph, events).state);
    expect(folder.state.members[0]).toMatchObject({ status: 'failed', failureCode: 'DENIED' });
  });

  it('stateAfter([]) drops the look-ahead, so the next apply reduces', () => {
    const events = recordOf(graph, dispatched, started(1), a.completed());
    const folder = foldAll(graph, events.slice(0, 3));
    const lookAhead = folder.lookAhead();
    const ahead = lookAhead.stateAfter([events[3]!]);
    lookAhead.stateAfter([]);
    folder.apply(events[3]!);
    expect(folder.state).not.toBe(ahead);
    expect(folder.state).toEqual(ahead);
  });
});

describe('the fold refuses a record that does not fit together (SPEC 4: INVALID_EVENT)', () => {
  it('revisions start at 1 and follow each other without gaps', () => {
    const events = recordOf(graph, dispatched, started(1));
    expect(refusal(graph, [{ ...events[0]!, revision: 2 }])).toMatch(/expected revision 1/);
    expect(refusal(graph, [events[0]!, events[2]!])).toMatch(/expected revision 2/);
    expect(refusal(graph, [events[0]!, events[1]!, events[1]!])).toMatch(/expected revision 3/);
  });

  it('a record starts with graph:run-started, which is revision 1 and only there', () => {
    const withoutStart = recordOf(graph, dispatched).slice(1).map((event) => ({ ...event, revision: 1 }));
    expect(refusal(graph, withoutStart)).toMatch(/must start with graph:run-started at revision 1/);
    const twice = recordOf(graph, [GraphEventTypes.RUN_STARTED, runStartedPayload(graph) as unknown as Json]);
    expect(refusal(graph, twice)).toMatch(/graph:run-started must be revision 1/);
    const afterHost = recordOf(graph).map((event) => ({ ...event, revision: 2 }));
    expect(refusal(graph, [{ revision: 1, eventId: 'h', type: 'host:note', version: 1, payload: null }, ...afterHost])).toMatch(/must start with graph:run-started at revision 1/);
  });

  it('graph:run-started holds exactly { definition: { kind, typeVersion, digest, value } }', () => {
    const { definition } = runStartedPayload(graph);
    const started = (payload: Json, version = 1): RecordedEvent[] => [{ revision: 1, eventId: 'e1', type: GraphEventTypes.RUN_STARTED, version, payload }];
    expect(refusal(graph, started({ definition, extra: 1 } as unknown as Json))).toMatch(/exactly the fields definition/);
    expect(refusal(graph, started({ definition: 'team' }))).toMatch(/payload must be exactly \{ definition \}/);
    const { value: _value, ...withoutValue } = definition;
    expect(refusal(graph, started({ definition: withoutValue }))).toMatch(/definition must be \{ kind, typeVersion, digest, value \}/);
    expect(refusal(graph, started({ definition: { ...definition, typeVersion: '1' } }))).toMatch(/definition must be/);
    expect(refusal(graph, started({ definition } as unknown as Json, 2))).toMatch(/version 2 is not supported/);
  });

  it('a run of another graph is STORED_GRAPH_MISMATCH, not a fold', () => {
    const { definition } = runStartedPayload(graph);
    for (const other of [{ ...definition, digest: 'sha256:other' }, { ...definition, kind: 'chain' }, { ...definition, typeVersion: 2 }]) {
      const folder = new RunRecordFolder(graph);
      let error: unknown;
      try {
        folder.apply({ revision: 1, eventId: 'e1', type: GraphEventTypes.RUN_STARTED, version: 1, payload: { definition: other } });
      } catch (caught) {
        error = caught;
      }
      expect(isGraphExecutionError(error, 'STORED_GRAPH_MISMATCH'), String(error)).toBe(true);
      expect((error as { details: unknown }).details).toEqual({ stored: { kind: other.kind, typeVersion: other.typeVersion, digest: other.digest } });
      expect(folder.definition).toBeNull();
    }
  });

  /** A well-formed event of each standard node type, all about `team/a/1`. */
  const wellFormed: Step[] = [dispatched, started(1), a.completed(), a.failed(), a.paused(), a.resumed(), retried(1)];

  it.each(wellFormed.map((step) => [step[0], step] as const))('%s must have version 1', (_type, [type, payload]) => {
    expect(refusal(graph, recordOf(graph, [type, payload, 2]))).toMatch(/version 2 is not supported \(only 1\)/);
    expect(refusal(graph, recordOf(graph, [type, payload, 0]))).toMatch(/version 0 is not supported/);
  });

  it.each(wellFormed.map((step) => [step[0], step] as const))('%s must have exactly its payload fields', (_type, [type, payload]) => {
    const fields = Object.keys(payload as object);
    expect(refusal(graph, recordOf(graph, [type, { ...(payload as object), extra: 1 }]))).toMatch(`exactly the fields ${fields.join(', ')}`);
    for (const field of fields) {
      const { [field]: _dropped, ...missing } = payload as Record<string, Json>;
      expect(refusal(graph, recordOf(graph, [type, missing]))).toMatch(`exactly the fields ${fields.join(', ')}`);
    }
  });

  it('a payload with exactly its fields that is not a plain object still meets reduce\'s check (INVALID_GRAPH_TYPE)', () => {
    const inherited = Object.assign(Object.create({ inherited: true }) as object, { nodeId: 'a', position }) as Json;
    const folder = new RunRecordFolder(graph);
    const [started, dispatch] = recordOf(graph, [GraphEventTypes.NODE_DISPATCHED, inherited]);
    folder.apply(started!);
    let thrown: unknown;
    try {
      folder.apply(dispatch!);
    } catch (error) {
      thrown = error;
    }
    expect(isGraphValidationError(thrown, 'INVALID_GRAPH_TYPE'), String(thrown)).toBe(true);
    expect((thrown as GraphValidationError).issues).toEqual([expect.objectContaining({ path: '/payload' })]);
  });

  it('every node event names a declared node', () => {
    expect(refusal(graph, recordOf(graph, [GraphEventTypes.NODE_DISPATCHED, { nodeId: 'ghost', position }]))).toMatch(/node "ghost" is not declared/);
    expect(refusal(graph, recordOf(graph, dispatched, [GraphEventTypes.NODE_ATTEMPT_STARTED, { nodeId: 'ghost', position, attempt: 1, retrySafe: false }]))).toMatch(
      /node "ghost" is not declared/,
    );
  });

  it('a dispatch batch equals what decide returned at that point, in order', () => {
    expect(foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched)).unfinishedPositions()).toEqual(['team/a/1', 'team/b/1']);
    expect(refusal(pair, recordOf(pair, b1.dispatched, a1.dispatched))).toMatch(/decide dispatched a at team\/a\/1 here/);
    expect(refusal(pair, recordOf(pair, [GraphEventTypes.NODE_DISPATCHED, { nodeId: 'a', position: 'team/a/2' }]))).toMatch(/decide dispatched a at team\/a\/1 here/);
    expect(refusal(pair, recordOf(pair, a1.dispatched, [GraphEventTypes.NODE_DISPATCHED, { nodeId: 'a', position: 'team/b/1' }]))).toMatch(/decide dispatched b at team\/b\/1 here/);
    // With both in flight decide returns nothing, and once the run is over it completes: no dispatch fits.
    expect(refusal(pair, recordOf(pair, a1.dispatched, b1.dispatched, [GraphEventTypes.NODE_DISPATCHED, { nodeId: 'a', position: 'team/a/2' }]))).toMatch(
      /decide did not dispatch at this point/,
    );
    expect(refusal(graph, recordOf(graph, dispatched, started(1), a.completed(), [GraphEventTypes.NODE_DISPATCHED, { nodeId: 'a', position: 'team/a/2' }]))).toMatch(
      /decide did not dispatch at this point/,
    );
  });

  it('a dispatch batch is never cut short: not by the end of a read, not by another event', () => {
    expect(refusal(pair, recordOf(pair, a1.dispatched))).toMatch(/The dispatch batch ending at revision 2 is shorter than decide returned/);
    expect(refusal(pair, recordOf(pair, a1.dispatched, a1.started()))).toMatch(/the dispatch batch before it is shorter than decide returned/);
    // A host event inside a batch is skipped and does not end it.
    expect(foldAll(pair, recordOf(pair, a1.dispatched, host(), b1.dispatched)).unfinishedPositions()).toEqual(['team/a/1', 'team/b/1']);
  });

  // `p` is kept as its string, `x/7` as a bit of prefix x (PositionSet): both refuse a repeat.
  it.each(['p', 'x/7'])('a position (%s) is dispatched at most once in a run, even if decide repeats it', (position) => {
    const repeating: GraphType<number> = {
      kind: 'repeat',
      version: 1,
      compile: () => ({
        initialState: () => 0,
        reduce: (count, event) => (event.type === GraphEventTypes.NODE_COMPLETED ? count + 1 : count),
        decide: (count) => (count < 2 ? [{ kind: 'dispatch', nodeId: 'x', position, input: null }] : [{ kind: 'complete', output: count }]),
        describe: () => ({ kind: 'repeat' }),
      }),
    };
    const repeat = compileGraph(repeating, { id: 'r', definitionVersion: 1, data: null, nodes: [{ id: 'x', data: null }], edges: [] });
    const x = attemptSteps('x', position);
    expect(foldAll(repeat, recordOf(repeat, x.dispatched, x.started(), x.completed())).hasDispatched(position)).toBe(true);
    expect(refusal(repeat, recordOf(repeat, x.dispatched, x.started(), x.completed(), x.dispatched))).toContain(`position ${position} was already dispatched`);
    // The refused dispatch changed nothing the folder tells.
    const folder = foldAll(repeat, recordOf(repeat, x.dispatched, x.started(), x.completed()));
    const again = recordOf(repeat, x.dispatched, x.started(), x.completed(), x.dispatched)[4]!;
    expect(() => folder.apply(again)).toThrow(`position ${position} was already dispatched`);
    expect([folder.revision, folder.state, folder.openAttempts(), folder.hasDispatched(position)]).toEqual([4, 1, [], true]);
  });

  it('an outcome needs a matching attempt in flight', () => {
    expect(refusal(graph, recordOf(graph, a.completed()))).toMatch(/no unfinished attempt of a at team\/a\/1/);
    expect(refusal(graph, recordOf(graph, dispatched, a.completed()))).toMatch(/no attempt in flight at team\/a\/1/);
    expect(refusal(graph, recordOf(graph, dispatched, a.failed()))).toMatch(/no attempt in flight/);
    expect(refusal(graph, recordOf(graph, dispatched, a.paused()))).toMatch(/no attempt in flight/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), a.completed(), a.completed()))).toMatch(/no unfinished attempt of a at team\/a\/1/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), a.failed(), a.completed()))).toMatch(/no unfinished attempt/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), a.paused(), a.completed()))).toMatch(/no attempt in flight/);
    // The attempt of another member at the same position does not match.
    expect(refusal(pair, recordOf(pair, a1.dispatched, b1.dispatched, [GraphEventTypes.NODE_ATTEMPT_STARTED, { nodeId: 'b', position: 'team/a/1', attempt: 1, retrySafe: false }]))).toMatch(
      /no unfinished attempt of b at team\/a\/1/,
    );
  });

  it('attempts start in order: once per dispatch or resume, numbered from 1', () => {
    expect(refusal(graph, recordOf(graph, dispatched, started(2)))).toMatch(/attempt must be 1/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), started(2)))).toMatch(/attempt at team\/a\/1 is started/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), a.paused(), started(2)))).toMatch(/attempt at team\/a\/1 is paused/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), a.resumed(), started(1)))).toMatch(/attempt must be 2/);
    expect(foldAll(graph, recordOf(graph, dispatched, started(1), a.resumed(), started(2))).openAttempt(position)).toMatchObject({ status: 'started', attempt: 2 });
  });

  it('a resume answers a paused attempt or a started one whose process died, nothing else', () => {
    expect(refusal(graph, recordOf(graph, dispatched, a.resumed()))).toMatch(/attempt at team\/a\/1 is dispatched, not paused/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), a.resumed(), a.resumed()))).toMatch(/is resumed, not paused/);
    expect(refusal(graph, recordOf(graph, dispatched, started(1), a.completed(), a.resumed()))).toMatch(/no unfinished attempt/);
  });

  it('skips events outside graph: whatever their version and payload; they only advance the revision', () => {
    const plain = foldAll(graph, recordOf(graph, dispatched, started(1), a.completed()));
    const hosted = foldAll(graph, recordOf(graph, host(), dispatched, host('x', 1), started(1), host(null, 99), a.completed(), host()));
    expect(hosted.revision).toBe(8);
    expect(hosted.state).toEqual(plain.state);
    expect(hosted.openAttempts()).toEqual([]);
  });

  it('leaves the folder as it was when it refuses an event, and still folds the next one that fits', () => {
    const folder = foldAll(graph, recordOf(graph, dispatched, started(1)));
    const state = folder.state;
    const open = folder.openAttempts();
    const misfits: Step[] = [retried(2), started(2), a.dispatched, attemptSteps('a', 'team/a/9').paused(), [GraphEventTypes.NODE_COMPLETED, { nodeId: 'a', position }]];
    for (const [type, payload] of misfits) {
      expect(() => folder.apply({ revision: 4, eventId: 'bad', type, version: 1, payload })).toThrow(expect.objectContaining({ code: 'INVALID_EVENT' }));
      expect(folder.state).toBe(state);
      expect(folder.revision).toBe(3);
      expect(folder.openAttempts()).toEqual(open);
      expect(folder.failures).toEqual([]);
    }
    folder.apply({ revision: 4, eventId: 'e4', type: GraphEventTypes.NODE_COMPLETED, version: 1, payload: a.completed()[1] });
    expect(folder.revision).toBe(4);
    expect(folder.openAttempts()).toEqual([]);
  });
});

describe('RunRecordFolder: what it tells its users, read-only', () => {
  it('openAttempt(position) follows one attempt from dispatch to its outcome', () => {
    const steps: Step[] = [dispatched];
    const at = () => foldAll(graph, recordOf(graph, ...steps)).openAttempt(position);
    const [command] = graph.decide(graph.initialState());
    expect(command?.kind).toBe('dispatch');
    // A dispatched attempt: the dispatch's input and event id, nothing started, paused, resumed or retried yet.
    const none = { retrySafe: null, pause: null, resumeValue: null, answeredPause: null, previousFailure: null };
    expect(at()).toEqual({ nodeId: 'a', position, status: 'dispatched', attempt: 0, input: (command as { input: Json }).input, dispatchEventId: 'e2', ...none, retries: 0 });
    steps.push(started(1, true));
    expect(at()).toMatchObject({ status: 'started', attempt: 1, retrySafe: true });
    steps.push(a.paused('Approve?', { ask: 'approve' }));
    expect(at()).toMatchObject({ status: 'paused', pause: { reason: 'Approve?', request: { ask: 'approve' } } });
    steps.push(a.resumed({ approved: true }));
    expect(at()).toMatchObject({ status: 'resumed', attempt: 1, resumeValue: { approved: true }, answeredPause: { reason: 'Approve?', request: { ask: 'approve' } } });
    steps.push(started(2));
    expect(at()).toMatchObject({ status: 'started', attempt: 2, pause: null, resumeValue: { approved: true } });
    steps.push(a.resumed('again'));
    expect(at()).toMatchObject({ status: 'resumed', resumeValue: 'again', answeredPause: null });
    steps.push(started(3), a.completed());
    expect(at()).toBeUndefined();
    expect(foldAll(graph, recordOf(graph)).openAttempt(position)).toBeUndefined();
    expect(foldAll(graph, recordOf(graph, dispatched)).openAttempt('team/a/2')).toBeUndefined();
  });

  it('unfinishedPositions() lists what is dispatched, started or resumed, not paused, in dispatch order', () => {
    expect(foldAll(pair, recordOf(pair)).unfinishedPositions()).toEqual([]);
    expect(foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched)).unfinishedPositions()).toEqual(['team/a/1', 'team/b/1']);
    expect(foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, b1.started(), a1.started(), a1.paused())).unfinishedPositions()).toEqual(['team/b/1']);
    expect(foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(), a1.paused(), a1.resumed(), b1.started())).unfinishedPositions()).toEqual([
      'team/a/1',
      'team/b/1',
    ]);
    expect(foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(), b1.started(), b1.completed(), a1.retried(1))).unfinishedPositions()).toEqual(['team/a/1']);
    expect(foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(), b1.started(), b1.completed(), a1.failed())).unfinishedPositions()).toEqual([]);
  });

  it('keeps dispatch order and forgets finished attempts while many finish out of order (the open set is rebuilt as it goes)', () => {
    const ids = Array.from({ length: 20 }, (_, index) => `m${String(index).padStart(2, '0')}`);
    const crowd = compileTeam(team({ members: ids.map((id) => ({ id })), rooms: null, globalConcurrency: 20, maxTurnsPerMember: 1 }));
    const steps = ids.map((id) => attemptSteps(id, `team/${id}/1`));
    // Finish 16 of the 20 in a scrambled order; m03, m07, m12 and m18 stay open (m12 paused).
    const finishing = [19, 0, 5, 1, 17, 9, 2, 14, 4, 16, 6, 11, 8, 15, 13, 10];
    const record = recordOf(
      crowd,
      ...steps.map((step) => step.dispatched),
      ...steps.map((step) => step.started(1)),
      ...finishing.map((index) => (index % 2 === 0 ? steps[index]!.completed() : steps[index]!.failed())),
      steps[12]!.paused(),
    );
    const folder = foldAll(crowd, record);
    expect(folder.openAttempts().map((attempt) => attempt.position)).toEqual(['team/m03/1', 'team/m07/1', 'team/m12/1', 'team/m18/1']);
    expect(folder.unfinishedPositions()).toEqual(['team/m03/1', 'team/m07/1', 'team/m18/1']);
    for (const index of finishing) {
      expect(folder.openAttempt(`team/${ids[index]!}/1`)).toBeUndefined();
      expect(folder.hasDispatched(`team/${ids[index]!}/1`)).toBe(true);
    }
    expect(folder.openAttempt('team/m12/1')).toMatchObject({ status: 'paused', attempt: 1 });
    expect(folder.failures.map((failure) => failure.nodeId)).toEqual(finishing.filter((index) => index % 2 === 1).map((index) => ids[index]));
    // A finished attempt takes no second outcome, whether or not the set was rebuilt since.
    expect(refusal(crowd, [...record, { revision: record.length + 1, eventId: 'again', type: GraphEventTypes.NODE_COMPLETED, version: 1, payload: { nodeId: 'm19', position: 'team/m19/1', result: { summary: 'again' } } }])).toMatch(/no unfinished attempt/);
    expect(refusal(crowd, [...record, { revision: record.length + 1, eventId: 'again', type: GraphEventTypes.NODE_COMPLETED, version: 1, payload: { nodeId: 'm10', position: 'team/m10/1', result: { summary: 'again' } } }])).toMatch(/no unfinished attempt/);
  });

  it('openAttempts() lists every unfinished attempt, paused ones too, as a new array', () => {
    const folder = foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(), a1.paused(), b1.started(), b1.completed()));
    const open = folder.openAttempts();
    expect(open.map((attempt) => [attempt.position, attempt.status])).toEqual([['team/a/1', 'paused']]);
    open.pop();
    expect(folder.openAttempts()).toHaveLength(1);
    expect(folder.openAttempt('team/a/1')).toBe(folder.openAttempts()[0]);
  });

  it('hasDispatched(position) stays true after the attempt ends', () => {
    const folder = foldAll(graph, recordOf(graph, dispatched, started(1), a.completed()));
    expect(folder.hasDispatched(position)).toBe(true);
    expect(folder.hasDispatched('team/a/2')).toBe(false);
    expect(foldAll(graph, recordOf(graph)).hasDispatched(position)).toBe(false);
  });

  it('failures lists every node-failed in record order, and definition what run-started stored', () => {
    const folder = foldAll(pair, recordOf(pair, a1.dispatched, b1.dispatched, a1.started(), b1.started(), b1.failed('TIMEOUT', 'slow'), a1.failed('DENIED', 'no')));
    expect(folder.failures).toEqual([
      { nodeId: 'b', position: 'team/b/1', code: 'TIMEOUT', message: 'slow' },
      { nodeId: 'a', position: 'team/a/1', code: 'DENIED', message: 'no' },
    ]);
    expect(folder.definition).toEqual(runStartedPayload(pair).definition);
    expect(new RunRecordFolder(pair).definition).toBeNull();
  });

  it('state, revision, definition and failures cannot be assigned; the folder changes only by apply', () => {
    const folder = foldAll(graph, recordOf(graph, dispatched));
    const writable = folder as unknown as Record<string, unknown>;
    for (const field of ['state', 'revision', 'definition', 'failures']) {
      expect(() => {
        writable[field] = null;
      }, field).toThrow(TypeError);
    }
    expect(writable.open).toBeUndefined();
    expect(writable.dispatched).toBeUndefined();
    expect(folder.revision).toBe(2);
  });
});
