import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { delegateStorage } from '@roundtable/storage/adapter';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition, TeamTurnResult } from '@roundtable/graph';
import type { NewEvent, RunStorage } from '@roundtable/storage';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor } from './index.js';
import { compileSeed, deterministic, readAll, seedNodes } from './__fixtures__/testTeams.js';

// SPEC 11.1: an outcome, the dispatch batch decide returns right after it and the starts of
// that batch's attempts go in one append; outcomes that arrive while an append is in flight
// join the next one. Counted through the public RunStorage interface around a real storage.

const RUN = 'grouped-1';

/** A real memory storage whose appends are recorded (event types per append) and may be held. */
function countingStorage(inner: RunStorage = createMemoryStorage()) {
  const appends: string[][] = [];
  let hold: ((events: readonly NewEvent[]) => Promise<void> | undefined) | null = null;
  const storage: RunStorage = delegateStorage(inner, {
    async append(streamId, expected, events) {
      appends.push(events.map((event) => event.type.replace('graph:', '')));
      await hold?.(events);
      return inner.append(streamId, expected, events);
    },
  });
  return { storage, appends, inner, holdWith: (fn: typeof hold) => (hold = fn) };
}

function parallelTeam(ids: readonly string[]): TeamDefinition {
  return {
    id: 'parallel-team',
    definitionVersion: 1,
    data: { task: 'Each answer once.', globalConcurrency: ids.length, maxTurnsPerMember: 1, communication: { rooms: [{ id: 'room', members: [...ids] }], tailMessages: 2 } },
    nodes: ids.map((id) => ({ id, data: { role: id, brief: 'Answer.' } })),
    edges: [],
  };
}

describe('grouped appends (SPEC 11.1)', () => {
  it('makes each serial turn one append: outcome, next dispatch and its attempt start together', async () => {
    const { storage, appends } = countingStorage();
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes, ...deterministic() });
    expect((await executor.run()).kind).toBe('complete');
    // writer → reviewer → writer: three turns, and the run's start.
    expect(appends).toEqual([
      ['run-started'],
      ['node-dispatched', 'node-attempt-started'],
      ['node-completed', 'node-dispatched', 'node-attempt-started'],
      ['node-completed', 'node-dispatched', 'node-attempt-started'],
      ['node-completed'],
    ]);
  });

  it('writes the event sequence one append per event would: same types, payloads, order and causes', async () => {
    const { storage, inner } = countingStorage();
    await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes, ...deterministic() })).run();
    const events = await readAll(inner, RUN);
    expect(events.map((event) => event.revision)).toEqual(events.map((_, index) => index + 1));
    expect(events.map((event) => [event.type, (event.payload as { nodeId?: string }).nodeId ?? null])).toEqual([
      ['graph:run-started', null],
      ['graph:node-dispatched', 'writer'],
      ['graph:node-attempt-started', 'writer'],
      ['graph:node-completed', 'writer'],
      ['graph:node-dispatched', 'reviewer'],
      ['graph:node-attempt-started', 'reviewer'],
      ['graph:node-completed', 'reviewer'],
      ['graph:node-dispatched', 'writer'],
      ['graph:node-attempt-started', 'writer'],
      ['graph:node-completed', 'writer'],
    ]);
    const byId = new Map(events.map((event) => [event.eventId, event]));
    for (const event of events.filter((event) => event.type !== 'graph:run-started' && event.type !== 'graph:node-dispatched')) {
      const cause = byId.get(event.causationId!);
      expect(cause?.type).toBe('graph:node-dispatched');
      expect((cause!.payload as { position: string }).position).toBe((event.payload as { position: string }).position);
      expect(cause!.revision).toBeLessThan(event.revision);
    }
    expect(events[2]!.payload).toEqual({ nodeId: 'writer', position: 'team/writer/1', attempt: 1, retrySafe: false });

    // A fresh executor folds the grouped record, returns the same result and appends nothing.
    let called = 0;
    const replay = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: inner, nodes: { writer: () => (called++, { summary: 'x' }), reviewer: () => (called++, { summary: 'x' }) } });
    expect((await replay.run()).kind).toBe('complete');
    expect(called).toBe(0);
    expect(await inner.head(RUN)).toBe(events.length);
  });

  it('commits outcomes that arrive while an append is in flight together, in one append', async () => {
    const { storage, appends, holdWith } = countingStorage();
    const releases: Record<string, () => void> = {};
    const finished: string[] = [];
    const member = (id: string) => async (): Promise<TeamTurnResult> => {
      await new Promise<void>((resolve) => (releases[id] = resolve));
      finished.push(id);
      return { summary: `${id} answered.` };
    };
    const graph = compileGraph(teamGraphType, parallelTeam(['a', 'b', 'c']));
    const executor = await createGraphExecutor({ runId: RUN, graph, storage, nodes: { a: member('a'), b: member('b'), c: member('c') } });
    // Hold the append of a's outcome until b and c have returned their results.
    holdWith(async (events) => {
      if (events[0]?.type !== 'graph:node-completed' || (events[0].payload as { nodeId: string }).nodeId !== 'a') return;
      releases.b!();
      releases.c!();
      while (finished.length < 3) await nextMacrotask();
      await nextMacrotask();
    });
    const running = executor.run();
    while (Object.keys(releases).length < 3) await nextMacrotask();
    releases.a!();
    const result = await running;
    expect(result.kind).toBe('complete');
    expect(appends).toEqual([
      ['run-started'],
      ['node-dispatched', 'node-dispatched', 'node-dispatched', 'node-attempt-started', 'node-attempt-started', 'node-attempt-started'],
      ['node-completed'],
      ['node-completed', 'node-completed'],
    ]);
  });

  it('falls back to one append per outcome when the storage refuses the group, and records the refusal', async () => {
    const backing = createMemoryBacking();
    const secret = 'hunter2-hunter2';
    const { storage, appends, inner } = countingStorage(createMemoryStorage({ backing, knownSecrets: [secret] }));
    const nodes = { ...seedNodes, reviewer: (): TeamTurnResult => ({ summary: `The key is ${secret}.`, posts: [{ roomId: 'review', text: 'ok', mentions: ['writer'] }] }) };
    const result = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes })).run();
    expect(result.kind).toBe('fail');
    const events = await readAll(inner, RUN);
    const failed = events.find((event) => event.type === 'graph:node-failed');
    expect(failed?.payload).toMatchObject({ nodeId: 'reviewer', code: 'KNOWN_SECRET' });
    expect(JSON.stringify(events)).not.toContain(secret);
    // The grouped append was refused, then the outcome alone, then the failure was written.
    expect(appends.slice(-3)).toEqual([['node-completed', 'node-dispatched', 'node-attempt-started'], ['node-completed'], ['node-failed']]);
  });
});
