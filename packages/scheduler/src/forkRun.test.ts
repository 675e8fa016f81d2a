import { describe, expect, it } from 'vitest';
import { digest } from '@roundtable/core';
import { compileGraph, runView, teamGraphType } from '@roundtable/graph';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { isStorageError } from '@roundtable/storage';
import type { NodeBinding } from './index.js';
import { answerPause, createGraphExecutor, forkRun, isGraphExecutionError, verifyForkPrefix } from './index.js';
import { teamDefinition } from '@roundtable/test-utils';
import { askTeam, compileSeed, readAll, seedNodes } from './__fixtures__/testTeams.js';

// SPEC 21 on the memory adapter: one append of graph:run-forked, the prefix read from the
// parent, run revisions that go on from it, and a fork that runs with other bindings.

const code = (name: string) => (error: unknown) => isGraphExecutionError(error, name as never);

describe('forkRun', () => {
  it('writes one event, reads the parent prefix as the fork\'s own revisions, and runs the fork with another reviewer', async () => {
    const storage = createMemoryStorage();
    const graph = compileSeed();
    expect((await (await createGraphExecutor({ runId: 'parent', graph, storage, nodes: seedNodes })).run()).kind).toBe('complete');
    const parent = await readAll(storage, 'parent');
    // The revision before the reviewer's first attempt start: fork there.
    const at = parent.findIndex((event) => event.type === 'graph:node-attempt-started' && (event.payload as { nodeId: string }).nodeId === 'reviewer');
    expect(await forkRun({ storage, from: 'parent', at, to: 'fork' })).toEqual({ runId: 'fork', revision: at + 1 });
    const own = await readAll(storage, 'fork');
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ type: 'graph:run-forked', revision: 1, payload: { from: 'parent', at, prefixDigest: digest(parent.slice(0, at)) } });
    expect(await readAll(storage, 'parent')).toEqual(parent);

    const view = runView(storage);
    expect(await view.head('fork')).toBe(at + 1);
    const run: unknown[] = [];
    for await (const event of view.read('fork')) run.push(event);
    expect(run.slice(0, at)).toEqual(parent.slice(0, at));
    expect(run[at]).toMatchObject({ type: 'graph:run-forked', revision: at + 1, streamRevision: 1 });

    let called = 0;
    const other: Record<string, NodeBinding> = { ...seedNodes, writer: (ctx) => (called++, seedNodes.writer(ctx)), reviewer: () => ({ summary: 'Rejected.', posts: [{ roomId: 'review', text: 'No.', mentions: ['writer'] }] }) };
    const result = await (await createGraphExecutor({ runId: 'fork', graph, storage, nodes: other })).run();
    expect(result.kind).toBe('complete');
    // The writer's first turn is in the prefix: only its second runs in the fork.
    expect(called).toBe(1);
    const forked: { revision: number; streamRevision?: number }[] = [];
    for await (const event of view.read('fork')) forked.push(event);
    expect(forked.map((event) => event.revision)).toEqual(forked.map((_, index) => index + 1));
    expect(JSON.stringify(forked.at(-1))).toContain('No.');
  });

  it('refuses a bad fork point, an existing run, an empty parent and a 17th level, writing nothing', async () => {
    const storage = createMemoryStorage();
    const graph = compileSeed();
    await (await createGraphExecutor({ runId: 'p', graph, storage, nodes: seedNodes })).run();
    const head = (await readAll(storage, 'p')).length;
    for (const at of [0, -1, 1.5, head + 1]) await expect(forkRun({ storage, from: 'p', at, to: 'f' })).rejects.toSatisfy(code('INVALID_FORK_POINT'));
    await expect(forkRun({ storage, from: 'p', at: 1, to: 'p' })).rejects.toSatisfy(code('RUN_EXISTS'));
    // Two first turns are one dispatch batch (revisions 2 and 3): no fork between them.
    const pair = compileGraph(teamGraphType, teamDefinition({ members: [{ id: 'a', initialTurn: true }, { id: 'b', initialTurn: true }] }));
    const done = { summary: 'done' };
    await (await createGraphExecutor({ runId: 'pair', graph: pair, storage, nodes: { a: () => done, b: () => done } })).run();
    await expect(forkRun({ storage, from: 'pair', at: 2, to: 'f' })).rejects.toSatisfy(code('INVALID_FORK_POINT'));
    expect(await forkRun({ storage, from: 'pair', at: 3, to: 'pair-3' })).toEqual({ runId: 'pair-3', revision: 4 });
    await expect(forkRun({ storage, from: 'nobody', at: 1, to: 'f' })).rejects.toSatisfy(code('RUN_NOT_FOUND'));
    expect(await readAll(storage, 'f')).toEqual([]);
    let from = 'p';
    for (let depth = 1; depth <= 16; depth++) {
      await forkRun({ storage, from, at: 2, to: `f${depth}` });
      from = `f${depth}`;
    }
    await expect(forkRun({ storage, from, at: 2, to: 'f17' })).rejects.toSatisfy(code('FORK_TOO_DEEP'));
    expect(await readAll(storage, 'f17')).toEqual([]);
  });

  it('keeps a pause open at the fork point, to be answered differently, and reruns an attempt in flight there', async () => {
    const storage = createMemoryStorage();
    const graph = compileGraph(teamGraphType, askTeam);
    const asker: Record<string, NodeBinding> = {
      asker: { decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason: 'May I?', request: {} } : { kind: 'allow' }), run: (ctx) => ({ summary: `answered ${JSON.stringify(ctx.resume)}` }) },
    };
    const paused = await (await createGraphExecutor({ runId: 'ask', graph, storage, nodes: asker })).run();
    expect(paused.kind).toBe('pause');
    const pausedAt = (await readAll(storage, 'ask')).length;
    await forkRun({ storage, from: 'ask', at: pausedAt, to: 'ask-b' });
    await answerPause({ storage, runId: 'ask', position: 'team/asker/1', value: 'yes', pausedAt });
    await answerPause({ storage, runId: 'ask-b', position: 'team/asker/1', value: 'no', pausedAt });
    const a = await (await createGraphExecutor({ runId: 'ask', graph, storage, nodes: asker })).run();
    const b = await (await createGraphExecutor({ runId: 'ask-b', graph, storage, nodes: asker })).run();
    expect(JSON.stringify(a)).toContain('answered \\"yes\\"');
    expect(JSON.stringify(b)).toContain('answered \\"no\\"');

    // At the attempt start (revision 3, no outcome yet), the fork starts attempt 2.
    await forkRun({ storage, from: 'ask', at: 3, to: 'ask-c' });
    const c = await (await createGraphExecutor({ runId: 'ask-c', graph, storage, nodes: asker })).run();
    expect(c.kind).toBe('pause');
    const starts = (await readAll(storage, 'ask-c')).filter((event) => event.type === 'graph:node-attempt-started');
    expect(starts.map((event) => (event.payload as { attempt: number }).attempt)).toEqual([2]);
  });

  it('verifyForkPrefix checks the digest of a fork and of each fork in its lineage, and names the fork and the parent when a parent changed under it', async () => {
    const storage = createMemoryStorage();
    const graph = compileSeed();
    await (await createGraphExecutor({ runId: 'p', graph, storage, nodes: seedNodes })).run();
    expect(await verifyForkPrefix({ storage, runId: 'p' })).toEqual([]);
    await forkRun({ storage, from: 'p', at: 4, to: 'f1' });
    await (await createGraphExecutor({ runId: 'f1', graph, storage, nodes: seedNodes })).run();
    await forkRun({ storage, from: 'f1', at: 7, to: 'f2' });
    expect(await verifyForkPrefix({ storage, runId: 'f2' })).toEqual([
      { runId: 'f2', from: 'f1', at: 7 },
      { runId: 'f1', from: 'p', at: 4 },
    ]);
    // The same fork events in a store whose 'p' is another run of the same team: each event
    // checks and the fork folds, only the digest tells.
    const other = createMemoryStorage();
    await (await createGraphExecutor({ runId: 'p', graph, storage: other, nodes: seedNodes })).run();
    const [forked] = await readAll(storage, 'f1');
    const { eventId, type, version, timestamp, correlationId, causationId, payload } = forked!;
    await other.append('f1', 0, [{ eventId, type, version, timestamp, correlationId, causationId, payload }]);
    const error = await verifyForkPrefix({ storage: other, runId: 'f1' }).then(() => null, (thrown: unknown) => thrown);
    expect(isStorageError(error, 'CORRUPT_EVENT_STREAM')).toBe(true);
    expect((error as Error).message).toMatch(/^Run f1 is a fork of p at revision 4, but its parent changed under it: /);
    expect((error as { details: unknown }).details).toMatchObject({ runId: 'f1', parent: 'p', at: 4, revision: 5, prefixDigest: (forked!.payload as { prefixDigest: string }).prefixDigest });
  });
});
