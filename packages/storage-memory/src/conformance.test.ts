import { StorageError } from '@roundtable/storage';
import { delegateStorage, prepareAppend, resolveStorageOptions, revisionConflict } from '@roundtable/storage/adapter';
import type { RunStorage, StorageOptions } from '@roundtable/storage';
import { runStorageConformance } from '@roundtable/storage/conformance';
import type { StorageConformanceResult } from '@roundtable/storage/conformance';
import { describe, expect, it } from 'vitest';
import { createMemoryBacking, createMemoryStorage } from './index.js';

/** Runs the kit over one fresh backing, each instance made by `create`. */
function runOverOneBacking(create: (options: StorageOptions & { backing: ReturnType<typeof createMemoryBacking> }) => RunStorage): Promise<StorageConformanceResult> {
  const backing = createMemoryBacking();
  return runStorageConformance({ name: 'memory (altered)', create: (options) => create({ ...options, backing }) });
}

/** `inner` with some methods replaced (a class instance cannot simply be spread). */
const alter = (inner: RunStorage, overrides: Partial<RunStorage>): RunStorage => delegateStorage(inner, overrides);

function failedCases(result: StorageConformanceResult): string[] {
  return [...new Set(result.failures.map((failure) => failure.case))].sort();
}

describe('@roundtable/storage-memory conformance', () => {
  it('passes the storage conformance kit', async () => {
    const backing = createMemoryBacking();
    const result = await runStorageConformance({ name: '@roundtable/storage-memory', create: (options) => createMemoryStorage({ ...options, backing }) });
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
  });

  // The kit must tell a working adapter from a broken one: these break this adapter on purpose.

  it('fails a version that drops appends', async () => {
    const result = await runOverOneBacking((options) => {
      const inner = createMemoryStorage(options);
      const config = resolveStorageOptions(options);
      return alter(inner, {
        async append(streamId, expectedRevision, events) {
          const prepared = prepareAppend(config, streamId, expectedRevision, events);
          const head = await inner.head(streamId);
          if (head !== expectedRevision) throw revisionConflict(expectedRevision, head);
          return prepared.nextHead;
        },
      });
    });
    expect(result.ok).toBe(false);
    expect(failedCases(result)).toContain('durable-append-across-reopen');
  });

  it('fails a version that locks only within one instance', async () => {
    const result = await runOverOneBacking((options) => {
      const inner = createMemoryStorage(options);
      const heads = new Map<string, number>();
      let tail: Promise<unknown> = Promise.resolve();
      return alter(inner, {
        append(streamId, expectedRevision, events) {
          const work = tail.then(async () => {
            const head = heads.get(streamId) ?? (await inner.head(streamId));
            if (head !== expectedRevision) throw revisionConflict(expectedRevision, head);
            await new Promise((resolve) => setTimeout(resolve, 1));
            heads.set(streamId, await inner.append(streamId, await inner.head(streamId), events));
            return expectedRevision + events.length;
          });
          tail = work.catch(() => undefined);
          return work;
        },
      });
    });
    expect(result.ok).toBe(false);
    expect(failedCases(result)).toContain('racing-instances-one-wins');
  });

  it('fails a version that ignores limits', async () => {
    const result = await runOverOneBacking((options) => createMemoryStorage({ ...options, limits: undefined }));
    expect(failedCases(result)).toEqual(['batch-limit-boundary', 'payload-limit-boundary']);
  });

  it('fails a version that screens only the raw JSON text for secrets', async () => {
    const result = await runOverOneBacking((options) => {
      const inner = createMemoryStorage({ ...options, knownSecrets: undefined });
      const secrets = options.knownSecrets ?? [];
      return alter(inner, {
        append(streamId, expectedRevision, events) {
          let text = '';
          try {
            text = `${streamId} ${JSON.stringify(events)}`;
          } catch {
            // Not JSON: the adapter lets the port refuse it.
          }
          if (secrets.some((secret) => text.includes(secret))) return Promise.reject(new StorageError('KNOWN_SECRET', 'refused'));
          return inner.append(streamId, expectedRevision, events);
        },
      });
    });
    // It bypasses the shared options check too, so it also takes short secrets.
    expect(failedCases(result)).toEqual(['known-secrets', 'short-known-secrets']);
  });
});
