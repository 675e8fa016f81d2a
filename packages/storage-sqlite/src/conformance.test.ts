import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStorageConformance } from '@roundtable/storage/conformance';
import { createSqliteStorage } from './index.js';
import { tempDirectory } from '../test/__fixtures__/helpers.js';

describe('the storage conformance kit', () => {
  it.each(['full', 'normal'] as const)("passes with synchronous: '%s' (every instance over one file)", async (synchronous) => {
    const { directory, cleanup } = tempDirectory();
    const filename = join(directory, 'conformance.db');
    const result = await runStorageConformance({
      name: `@roundtable/storage-sqlite (${synchronous})`,
      create: (options) => createSqliteStorage({ ...options, filename, synchronous }),
      destroy: cleanup,
    });
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.cases.length).toBeGreaterThan(10);
  }, 120_000);
});
