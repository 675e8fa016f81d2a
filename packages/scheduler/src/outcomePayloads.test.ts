import { describe, expect, it } from 'vitest';
import type { Json } from '@roundtable/core';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor, teamOutput } from './index.js';
import { compileSeed, seedNodes } from './__fixtures__/testTeams.js';

// Outcome payloads are frozen once before they are written (issue 12: one walk per value), so
// what a first run hands back is the recorded value, frozen, exactly as a replay hands it back.

const RUN = 'payloads-1';

function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

describe('outcome payloads', () => {
  it('a pause request is the deep-frozen recorded value on the first run, as on a replay', async () => {
    const backing = createMemoryBacking();
    const request: Record<string, Json> = { zeta: 1, alpha: { y: [3, { b: 1, a: 2 }], x: null } };
    const nodes = { writer: { run: seedNodes.writer, decideAction: () => ({ kind: 'wait' as const, reason: 'check', request }) }, reviewer: seedNodes.reviewer };
    const first = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes })).run();
    const replay = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes })).run();
    if (first.kind !== 'pause' || replay.kind !== 'pause') throw new Error('expected pauses');
    expect(deeplyFrozen(first.request)).toBe(true);
    expect(deeplyFrozen(replay.request)).toBe(true);
    expect(first.request).not.toBe(request);
    expect(replay).toEqual(first);
  });

  it('a completed result reaches the run\'s output frozen and in canonical key order, the member\'s object untouched', async () => {
    const returned = { summary: 'Final.', data: { zeta: [2, 1], alpha: { b: true, a: null } } };
    const nodes = { writer: () => returned, reviewer: seedNodes.reviewer };
    const result = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes })).run();
    const saved = teamOutput(result)?.agents[0]?.result;
    expect(saved).toEqual(returned);
    expect(deeplyFrozen(saved)).toBe(true);
    expect(Object.keys(saved!.data as object)).toEqual(['alpha', 'zeta']);
    expect(Object.isFrozen(returned)).toBe(false);
  });

  it('every event the executor appends is frozen, its payload deep-frozen with its keys in canonical order', async () => {
    const storage = createMemoryStorage();
    const appended: unknown[] = [];
    const recording = { ...storage, append: (streamId: string, expected: number, events: readonly unknown[]) => (appended.push(...events), storage.append(streamId, expected, events as never)) };
    const nodes = { writer: () => ({ summary: 'Final.', data: { zeta: 1, alpha: 2 } }), reviewer: seedNodes.reviewer };
    expect((await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: recording, nodes })).run()).kind).toBe('complete');
    const types = new Set<string>();
    const ordered = (value: unknown): boolean =>
      typeof value !== 'object' || value === null || (Object.keys(value).join() === Object.keys(value).sort().join() && Object.values(value).every(ordered));
    for (const event of appended as { type: string; payload: Json }[]) {
      types.add(event.type);
      expect(Object.isFrozen(event)).toBe(true);
      // The run's start carries the graph's definition as the graph gives it.
      if (event.type === 'graph:run-started') continue;
      expect(deeplyFrozen(event.payload)).toBe(true);
      expect(ordered(event.payload)).toBe(true);
    }
    expect([...types].sort()).toEqual(['graph:node-attempt-started', 'graph:node-completed', 'graph:node-dispatched', 'graph:run-started']);
  });
});
