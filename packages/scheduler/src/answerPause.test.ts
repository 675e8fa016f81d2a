import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { GraphType } from '@roundtable/graph';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import type { MemoryBacking } from '@roundtable/storage-memory';
import type { RunStorage, StoredEvent } from '@roundtable/storage';
import { newEvent, rejection } from '@roundtable/test-utils';
import { answerPause, createGraphExecutor, isGraphExecutionError } from './index.js';
import type { NodeBinding } from './index.js';
import { askTeam, readAll, scheduledStorage } from './__fixtures__/testTeams.js';

// SPEC 20's answer: one append at the expected revision, written only while the position is
// still paused. Of racing answers (answerPause, executor.resume, in any mix and interleaving)
// exactly one is written and its attempt runs once; every other writes nothing.

const RUN = 'answer-1';
const POSITION = 'team/asker/1';

const graph = () => compileGraph(teamGraphType, askTeam);

/** The asker pauses until answered (a reconcile answer included); `runs` collects the answers it ran with. */
function asker(runs: Json[] = []): Record<string, NodeBinding> {
  return {
    asker: {
      decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason: 'May I?', request: { ask: 'go?' } } : { kind: 'allow' }),
      run: (ctx) => {
        runs.push(ctx.resume);
        return { summary: `went with ${JSON.stringify(ctx.resume)}` };
      },
    },
  };
}

/** A run paused at POSITION (revision 4) on `backing`. */
async function pausedRun(backing: MemoryBacking = createMemoryBacking()): Promise<MemoryBacking> {
  const result = await (await createGraphExecutor({ runId: RUN, graph: graph(), storage: createMemoryStorage({ backing }), nodes: asker() })).run();
  expect(result).toMatchObject({ kind: 'pause', position: POSITION });
  return backing;
}

const types = (events: readonly StoredEvent[]) => events.map((event) => event.type.replace('graph:', ''));

describe('answerPause', () => {
  it('appends node-resumed for the paused position, returns its revision, and the next resume runs it once with the value', async () => {
    const backing = await pausedRun();
    const storage = createMemoryStorage({ backing });
    expect(await answerPause({ storage, runId: RUN, position: POSITION, value: { approved: true }, pausedAt: 4 })).toEqual({ revision: 5, pausedAt: 4 });
    const events = await readAll(storage, RUN);
    expect(types(events)).toEqual(['run-started', 'node-dispatched', 'node-attempt-started', 'node-paused', 'node-resumed']);
    expect(events[4]!.payload).toEqual({ nodeId: 'asker', position: POSITION, value: { approved: true } });
    expect(events[4]!.causationId).toBe(events[1]!.eventId);
    const runs: Json[] = [];
    const done = await (await createGraphExecutor({ runId: RUN, graph: graph(), storage, nodes: asker(runs) })).resume(POSITION);
    expect(done.kind).toBe('complete');
    expect(runs).toEqual([{ approved: true }]);
  });

  it('refuses with a typed error and writes nothing for every answer that has no pause to answer', async () => {
    const backing = await pausedRun();
    const storage = createMemoryStorage({ backing });
    const refused = async (options: Partial<Parameters<typeof answerPause>[0]>, code: string) => {
      const head = await storage.head(RUN);
      const error = await rejection(answerPause({ storage, runId: RUN, position: POSITION, value: 'yes', ...options }));
      expect(error, JSON.stringify(options)).toMatchObject({ code });
      expect(await storage.head(RUN)).toBe(head);
      return error as Error;
    };
    expect((await refused({ position: 'team/asker/2' }, 'PROTOCOL')).message).toContain('never dispatched');
    expect((await refused({ pausedAt: 3 }, 'STALE_ANSWER')).message).toContain('paused at revision 4, not at 3');
    await refused({ pausedAt: 0 }, 'PROTOCOL');
    await refused({ pausedAt: 4.5 }, 'PROTOCOL');
    await refused({ position: '' }, 'PROTOCOL');
    await refused({ runId: 'no-such-run' }, 'RUN_NOT_FOUND');
    await refused({ runId: 'not a stream id' }, 'INVALID_STORED_VALUE');
    await refused({ value: { when: new Date(0) } as never }, 'INVALID_JSON_VALUE');
    await refused({ types: [{ ...teamGraphType, kind: 'other' } as unknown as GraphType<unknown>] }, 'UNKNOWN_GRAPH_TYPE');
    // Answered: a second answer is stale, with or without the revision it saw.
    await answerPause({ storage, runId: RUN, position: POSITION, value: 'first' });
    expect((await refused({}, 'STALE_ANSWER')).message).toContain('already answered');
    await refused({ pausedAt: 4 }, 'STALE_ANSWER');
    // Running (the answered attempt started and its process died): not paused, and answered.
    const running = createMemoryBacking();
    const runStorage = createMemoryStorage({ backing: running });
    const stuck: Record<string, NodeBinding> = { asker: { run: () => new Promise(() => undefined) } };
    const controller = new AbortController();
    const pending = (await createGraphExecutor({ runId: RUN, graph: graph(), storage: runStorage, nodes: stuck })).run(controller.signal);
    await waitForHead(runStorage, 3);
    const error = await rejection(answerPause({ storage: runStorage, runId: RUN, position: POSITION, value: 'x' }));
    expect(error).toMatchObject({ code: 'PROTOCOL' });
    expect((error as Error).message).toContain('running');
    controller.abort();
    await rejection(pending);
    expect(await runStorage.head(RUN)).toBe(3);
  });

  it('refuses a record whose first event is not the run start, before writing anything (INVALID_EVENT)', async () => {
    const storage = createMemoryStorage();
    await storage.append(RUN, 0, [newEvent('host-1', { note: 'mine' })]);
    await expect(answerPause({ storage, runId: RUN, position: POSITION })).rejects.toMatchObject({ code: 'INVALID_EVENT' });
    await expect(createGraphExecutor({ runId: RUN, graph: graph(), storage, nodes: asker() })).rejects.toMatchObject({ code: 'INVALID_EVENT' });
    expect(await storage.head(RUN)).toBe(1);
  });
});

describe('executor.resume with a value', () => {
  it('is an answer: STALE_ANSWER once the pause was answered (running, or finished), PROTOCOL where there was none', async () => {
    const backing = await pausedRun();
    const first = await createGraphExecutor({ runId: RUN, graph: graph(), storage: createMemoryStorage({ backing }), nodes: asker() });
    const late = await createGraphExecutor({ runId: RUN, graph: graph(), storage: createMemoryStorage({ backing }), nodes: asker() });
    expect((await first.resume(POSITION, { value: 'a' })).kind).toBe('complete');
    const head = await createMemoryStorage({ backing }).head(RUN);
    // `late` folded the pause before the answer: it learns of the answer at its own append.
    await expect(late.resume(POSITION, { value: 'b' })).rejects.toMatchObject({ code: 'STALE_ANSWER' });
    await expect(late.resume('team/asker/9', { value: 'b' })).rejects.toMatchObject({ code: 'PROTOCOL' });
    expect(await createMemoryStorage({ backing }).head(RUN)).toBe(head);
    // The PROTOCOL of a position that is no unfinished attempt names the unfinished ones.
    await expect(late.resume('team/asker/9')).rejects.toThrow(/it has none/);
  });
});

type Answerer = { kind: 'answerPause' | 'resume'; delays: number };

describe('racing answers', () => {
  it('write exactly one answer, whose attempt runs once; every other answerer gets STALE_ANSWER and writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ kind: fc.constantFrom<Answerer['kind']>('answerPause', 'resume'), delays: fc.nat(6) }), { minLength: 2, maxLength: 5 }),
        fc.scheduler(),
        async (answerers, s) => {
          const backing = await pausedRun();
          const runs: Json[] = [];
          // Every read and append of every answerer waits for the scheduler, which picks the order.
          const scheduled = () => scheduledStorage((label) => s.schedule(Promise.resolve(label)), backing);
          const outcomes = answerers.map(async ({ kind, delays }, index) => {
            for (let step = 0; step < delays; step++) await s.schedule(Promise.resolve(`delay ${index}`));
            const value = `answer ${index}`;
            const storage = scheduled();
            if (kind === 'answerPause') return answerPause({ storage, runId: RUN, position: POSITION, value });
            const executor = await createGraphExecutor({ runId: RUN, graph: graph(), storage, nodes: asker(runs) });
            return executor.resume(POSITION, { value });
          });
          const settled = s.waitFor(Promise.allSettled(outcomes));
          const results = await settled;
          const winners = results.flatMap((result, index) => (result.status === 'fulfilled' ? [index] : []));
          expect(winners).toHaveLength(1);
          for (const result of results) if (result.status === 'rejected') expect(isGraphExecutionError(result.reason, 'STALE_ANSWER'), String(result.reason)).toBe(true);
          // The answer written is the winner's, once; its attempt ran (now, when no resume won) once.
          const storage = createMemoryStorage({ backing });
          if (answerers[winners[0]!]!.kind === 'answerPause') {
            expect((await (await createGraphExecutor({ runId: RUN, graph: graph(), storage, nodes: asker(runs) })).resume(POSITION)).kind).toBe('complete');
          }
          const events = await readAll(storage, RUN);
          expect(types(events)).toEqual(['run-started', 'node-dispatched', 'node-attempt-started', 'node-paused', 'node-resumed', 'node-attempt-started', 'node-completed']);
          expect(events[4]!.payload).toMatchObject({ value: `answer ${winners[0]}` });
          expect(runs).toEqual([`answer ${winners[0]}`]);
        },
      ),
      { numRuns: 60 },
    );
  });
});


async function waitForHead(storage: RunStorage, head: number): Promise<void> {
  while ((await storage.head(RUN)) < head) await new Promise((resolve) => setTimeout(resolve, 1));
}
