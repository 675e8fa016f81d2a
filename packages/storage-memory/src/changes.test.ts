import { followStream } from '@roundtable/storage';
import type { NewEvent } from '@roundtable/storage';
import { describe, expect, it } from 'vitest';
import { newEvent } from '@roundtable/test-utils';
import { createMemoryBacking, createMemoryStorage } from './index.js';

const event = (id: number): NewEvent => newEvent(`e-${id}`, { id });

describe('memory change hints', () => {
  it('wake a follower on another instance of the backing at once, without polling', async () => {
    const backing = createMemoryBacking();
    const writer = createMemoryStorage({ backing });
    const reader = createMemoryStorage({ backing });
    const controller = new AbortController();
    const seen: number[] = [];
    // An hour's poll interval: only a hint can deliver these before the test's timeout.
    const done = (async () => {
      for await (const stored of followStream(reader, 'run-1', { signal: controller.signal, pollIntervalMs: 3_600_000 })) {
        seen.push(stored.revision);
        if (seen.length === 3) controller.abort();
      }
    })();
    await writer.append('run-1', 0, [event(1)]);
    await writer.append('run-1', 1, [event(2), event(3)]);
    await done;
    expect(seen).toEqual([1, 2, 3]);
  });

  it('never hint across namespaces or streams, and end when the instance closes', async () => {
    const backing = createMemoryBacking();
    const writer = createMemoryStorage({ backing, namespace: 'other' });
    const reader = createMemoryStorage({ backing });
    const controller = new AbortController();
    const iterator = reader.changes!('run-1', controller.signal)[Symbol.asyncIterator]();
    let hinted = false;
    const next = iterator.next().then((result) => {
      hinted = !result.done;
      return result;
    });
    await writer.append('run-1', 0, [event(1)]);
    await reader.append('run-2', 0, [event(1)]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(hinted).toBe(false);
    await reader.close();
    expect(await next).toEqual({ done: true, value: undefined });
  });
});
