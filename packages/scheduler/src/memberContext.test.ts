import { describe, expect, it } from 'vitest';
import { canonicalJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor, teamMembers } from './index.js';
import type { NodeAction, NodeContext } from './index.js';
import { compileSeed, seedNodes } from './__fixtures__/testTeams.js';

// SPEC 11.5 (canonical pause request), 11.6 (ctx.attempt, ctx.pause), 11.7 (turn, triggers).

const RUN = 'ctx-1';

type Seen = Pick<NodeContext, 'attempt' | 'pause' | 'resume' | 'previousFailure'> & { hook: 'decideAction' | 'run' };
const record = (seen: Seen[], hook: Seen['hook'], ctx: NodeContext) =>
  seen.push({ hook, attempt: ctx.attempt, pause: ctx.pause, resume: ctx.resume, previousFailure: ctx.previousFailure });

describe('ctx.attempt and ctx.pause', () => {
  it('on a human resume: decideAction runs again and sees the answer and the pause it answers (ask-a-person)', async () => {
    const seen: Seen[] = [];
    const askFirst = {
      decideAction: (ctx: NodeContext): NodeAction => {
        record(seen, 'decideAction', ctx);
        // Ask once; on the resumed attempt the person's answer is there, so go ahead.
        if (ctx.pause?.reason === 'Publish?' && ctx.resume !== null) return ctx.resume === 'yes' ? { kind: 'allow' } : { kind: 'deny', reason: 'The person said no.' };
        return { kind: 'wait', reason: 'Publish?', request: { question: 'Publish the draft?', options: ['yes', 'no'] } };
      },
      run: (ctx: NodeContext) => {
        record(seen, 'run', ctx);
        return seedNodes.writer(ctx);
      },
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed({ maxTurnsPerMember: 1 }), storage: createMemoryStorage(), nodes: { writer: askFirst, reviewer: seedNodes.reviewer } });
    expect(await executor.run()).toMatchObject({ kind: 'pause', reason: 'Publish?', position: 'team/writer/1' });
    await executor.resume('team/writer/1', { value: 'yes' });
    const pause = { reason: 'Publish?', request: { options: ['yes', 'no'], question: 'Publish the draft?' } };
    expect(seen).toEqual([
      { hook: 'decideAction', attempt: 1, pause: null, resume: null, previousFailure: null },
      { hook: 'decideAction', attempt: 2, pause, resume: 'yes', previousFailure: null },
      { hook: 'run', attempt: 2, pause, resume: 'yes', previousFailure: null },
    ]);
  });

  it('on a reconcile resume: ctx.pause is the reconcile-attempt pause, so the member can tell it from a person', async () => {
    const backing = createMemoryBacking();
    const controller = new AbortController();
    const seen: Seen[] = [];
    const writer = {
      decideAction: (ctx: NodeContext): NodeAction => (record(seen, 'decideAction', ctx), { kind: 'allow' }),
      run: (ctx: NodeContext) => {
        record(seen, 'run', ctx);
        if (ctx.position === 'team/writer/1' && ctx.attempt === 1) return new Promise(() => controller.abort()); // the process "dies" mid-attempt
        return seedNodes.writer(ctx);
      },
    };
    const nodes = { writer, reviewer: seedNodes.reviewer };
    await expect((await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes })).run(controller.signal)).rejects.toMatchObject({ code: 'ABORTED' });
    const fresh = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    expect(await fresh.run()).toEqual({ kind: 'waiting', positions: ['team/writer/1'] });
    expect(await fresh.resume('team/writer/1')).toMatchObject({ kind: 'pause', request: { kind: 'reconcile-attempt' } });
    expect((await fresh.resume('team/writer/1', { value: { rerun: true } })).kind).toBe('complete');
    const reconcile = seen[2]!.pause;
    expect(reconcile).toMatchObject({ request: { kind: 'reconcile-attempt' } });
    expect(typeof reconcile?.reason).toBe('string');
    expect(seen.slice(0, 4)).toEqual([
      { hook: 'decideAction', attempt: 1, pause: null, resume: null, previousFailure: null },
      { hook: 'run', attempt: 1, pause: null, resume: null, previousFailure: null },
      { hook: 'decideAction', attempt: 2, pause: reconcile, resume: { rerun: true }, previousFailure: null },
      { hook: 'run', attempt: 2, pause: reconcile, resume: { rerun: true }, previousFailure: null },
    ]);
  });

  it('on a retrySafe re-run after a crash: attempt + 1 and no pause', async () => {
    const backing = createMemoryBacking();
    const controller = new AbortController();
    const seen: Seen[] = [];
    const writer = {
      retrySafe: true,
      run: (ctx: NodeContext) => {
        record(seen, 'run', ctx);
        return ctx.position === 'team/writer/1' && ctx.attempt === 1 ? new Promise(() => controller.abort()) : seedNodes.writer(ctx);
      },
    };
    const nodes = { writer, reviewer: seedNodes.reviewer };
    await expect((await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes })).run(controller.signal)).rejects.toMatchObject({ code: 'ABORTED' });
    const fresh = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    expect((await fresh.resume('team/writer/1')).kind).toBe('complete');
    expect(seen[1]).toEqual({ hook: 'run', attempt: 2, pause: null, resume: null, previousFailure: null });
  });
});

describe('the pause request is its recorded, canonical value (SPEC 11.5)', () => {
  it('is the same on the first run and on a replay, whatever the member does with its object later', async () => {
    const backing = createMemoryBacking();
    const request: Record<string, Json> = { zeta: 1, alpha: { y: [3, { b: 1, a: 2 }], x: null } };
    const nodes = { writer: { run: seedNodes.writer, decideAction: () => ({ kind: 'wait' as const, reason: 'check', request }) }, reviewer: seedNodes.reviewer };
    const first = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes })).run();
    request.zeta = 'changed';
    const replay = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes })).run();
    if (first.kind !== 'pause' || replay.kind !== 'pause') throw new Error('expected pauses');
    expect(JSON.stringify(first.request)).toBe(canonicalJson({ zeta: 1, alpha: { y: [3, { b: 1, a: 2 }], x: null } }));
    expect(JSON.stringify(replay.request)).toBe(JSON.stringify(first.request));
    expect(replay).toEqual(first);
  });

  it('a resume value is recorded canonically, and a value that is not JSON is refused before anything is written', async () => {
    const backing = createMemoryBacking();
    const storage = createMemoryStorage({ backing });
    let resumeSeen: Json = null;
    const nodes = {
      writer: {
        run: (ctx: NodeContext) => ((resumeSeen = ctx.resume), seedNodes.writer(ctx)),
        decideAction: (ctx: NodeContext) => (ctx.pause === null ? { kind: 'wait' as const, reason: 'ok?', request: null } : { kind: 'allow' as const }),
      },
      reviewer: seedNodes.reviewer,
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed({ maxTurnsPerMember: 1 }), storage, nodes });
    await executor.run();
    const head = await storage.head(RUN);
    await expect(executor.resume('team/writer/1', { value: { when: new Date(0) } as never })).rejects.toMatchObject({ code: 'INVALID_JSON_VALUE' });
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error('trap'); }, getPrototypeOf: () => { throw new Error('trap'); } });
    await expect(executor.resume('team/writer/1', { value: proxy as never })).rejects.toMatchObject({ code: 'INVALID_JSON_VALUE' });
    expect(await storage.head(RUN)).toBe(head);
    await executor.resume('team/writer/1', { value: { b: 1, a: 2 } });
    expect(Object.keys(resumeSeen as unknown as object)).toEqual(['a', 'b']);
  });
});

describe('turn and triggers reach the member (SPEC 11.7)', () => {
  it('each turn sees its number and the messages that requested it', async () => {
    const graph = compileSeed();
    const seen: { member: string; turn: number; triggers: readonly string[] }[] = [];
    const nodes = teamMembers(graph, {
      writer: (ctx) => (seen.push({ member: 'writer', turn: ctx.input.turn, triggers: ctx.input.triggers }), seedNodes.writer(ctx)),
      reviewer: (ctx) => (seen.push({ member: 'reviewer', turn: ctx.input.turn, triggers: ctx.input.triggers }), seedNodes.reviewer()),
    });
    expect((await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage(), nodes })).run()).kind).toBe('complete');
    expect(seen).toEqual([
      { member: 'writer', turn: 1, triggers: [] },
      { member: 'reviewer', turn: 1, triggers: ['team/writer/1/0'] },
      { member: 'writer', turn: 2, triggers: ['team/reviewer/1/0'] },
    ]);
  });
});
