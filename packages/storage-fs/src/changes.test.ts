import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { followStream } from '@roundtable/storage';
import { revisionsUntil } from '@roundtable/test-utils';
import { createFsStorage } from './index.js';
import { builtEntry, newEvent, removeTempDirectories, tempDirectory } from './__fixtures__/support.js';

afterAll(removeTempDirectories);

const APPEND_WORKER = fileURLToPath(new URL('./__fixtures__/appendWorker.mjs', import.meta.url));

function followUntil(storage: ReturnType<typeof createFsStorage>, streamId: string, count: number, pollIntervalMs: number): Promise<number[]> {
  const controller = new AbortController();
  return revisionsUntil(followStream(storage, streamId, { signal: controller.signal, pollIntervalMs }), count, () => controller.abort());
}

describe('fs change hints', () => {
  it('wake a follower when another instance links a batch in, even before the stream folder exists', async () => {
    const directory = tempDirectory();
    const writer = createFsStorage({ directory });
    const reader = createFsStorage({ directory });
    // An hour's poll interval: only the folder watch can deliver these before the test's timeout.
    const follow = followUntil(reader, 'run-1', 3, 3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writer.append('run-1', 0, [newEvent('a')]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writer.append('run-1', 1, [newEvent('b'), newEvent('c')]);
    expect(await follow).toEqual([1, 2, 3]);
    await writer.close();
    await reader.close();
  });

  it('follow every event another process appends, once and in order', { timeout: 60_000 }, async () => {
    const directory = tempDirectory();
    const reader = createFsStorage({ directory });
    await reader.append('run-1', 0, [newEvent('first')]);
    const follow = followUntil(reader, 'run-1', 41, 250);
    await promisify(execFile)(process.execPath, [APPEND_WORKER, builtEntry(), directory, 'run-1', '1', '40']);
    expect(await follow).toEqual(Array.from({ length: 41 }, (_, index) => index + 1));
    await reader.close();
  });

  it('end when the instance closes', async () => {
    const reader = createFsStorage({ directory: tempDirectory() });
    const iterator = reader.changes!('run-1', new AbortController().signal)[Symbol.asyncIterator]();
    const next = iterator.next();
    await reader.close();
    expect(await next).toEqual({ done: true, value: undefined });
  });
});
