import { afterAll, describe, expect, it } from 'vitest';
import { runStorageConformance } from '@roundtable/storage/conformance';
import { createFsStorage } from './index.js';
import { removeTempDirectories, tempDirectory } from './__fixtures__/support.js';

afterAll(removeTempDirectories);

describe('@roundtable/storage-fs', () => {
  it('passes the storage conformance kit', { timeout: 300_000 }, async () => {
    const directory = tempDirectory();
    const result = await runStorageConformance({
      name: '@roundtable/storage-fs',
      create: (options) => createFsStorage({ ...options, directory }),
    });
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.cases.length).toBeGreaterThan(0);
  });
});
