import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { followStream } from '@roundtable/storage';
import { revisionsUntil } from '@roundtable/test-utils';
import type { NewEvent, RunStorage } from '@roundtable/storage';
import { createSqliteStorage } from './index.js';
import { newEvent, tempDirectory } from '../test/__fixtures__/helpers.js';

const event = (id: string): NewEvent => newEvent(id, { id });

function followUntil(storage: RunStorage, streamId: string, count: number, pollIntervalMs: number): Promise<number[]> {
  const controller = new AbortController();
  return revisionsUntil(followStream(storage, streamId, { signal: controller.signal, pollIntervalMs }), count, () => controller.abort());
}

describe('SQLite change hints (PRAGMA data_version)', () => {
  it('wake a follower when another process commits, without waiting for the poll', { timeout: 60_000 }, async () => {
    const { directory, cleanup } = tempDirectory();
    const filename = join(directory, 'hints.db');
    const reader = createSqliteStorage({ filename });
    try {
      await reader.append('run-1', 0, [event('first')]);
      // An hour's poll interval: only a data_version hint can deliver the child's events.
      const follow = followUntil(reader, 'run-1', 6, 3_600_000);
      const entry = new URL('../dist/index.js', import.meta.url).href;
      const script = `
        const { createSqliteStorage } = await import(${JSON.stringify(entry)});
        const storage = createSqliteStorage({ filename: ${JSON.stringify(filename)} });
        for (let r = 1; r < 6; r++) {
          await storage.append('run-1', r, [{ eventId: 'child-' + r, type: 'test:event', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: 'run', causationId: null, payload: {} }]);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await storage.close();`;
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
      expect(await follow).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await reader.close();
      cleanup();
    }
  });

  it('end when the instance closes, and close the hint connection', async () => {
    const { directory, cleanup } = tempDirectory();
    const storage = createSqliteStorage({ filename: join(directory, 'hints.db') });
    const iterator = storage.changes!('run-1', new AbortController().signal)[Symbol.asyncIterator]();
    const next = iterator.next();
    await storage.close();
    expect(await next).toEqual({ done: true, value: undefined });
    cleanup();
  });
});
