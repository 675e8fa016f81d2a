import { canonicalJson, isJson, isWellFormedString } from '@roundtable/core';
import { describe, expect, it } from 'vitest';
import { conformanceCaseNames, runStorageConformance } from './conformance.js';
import type { StorageConformanceResult } from './conformance.js';
import { StorageError, assertRevision, assertStreamId, isStorageError } from './index.js';
import { duplicateEventId, prepareAppend, resolveAgainstHead, resolveStorageOptions, revisionConflict } from './adapter.js';
import type { NewEvent, RunStorage, StorageOptions, StoredEvent } from './index.js';

/*
 * The kit is tested against a small reference adapter written here (the storage package cannot
 * depend on @roundtable/storage-memory, which depends on it), and against broken versions of it:
 * each fault is a way a real adapter could go wrong, and the kit must name the case it breaks.
 */

type Fault = 'keepCallerObjects' | 'noStreamDuplicateCheck' | 'noRetry' | 'liveReads';

interface ReferenceStream {
  events: StoredEvent[];
  texts: string[];
  ids: Set<string>;
}

interface ReferenceBacking {
  namespaces: Map<string, Map<string, ReferenceStream>>;
  tail: Promise<unknown>;
}

function createReferenceBacking(): ReferenceBacking {
  return { namespaces: new Map(), tail: Promise.resolve() };
}

function createReferenceStorage(backing: ReferenceBacking, options: StorageOptions = {}, faults: readonly Fault[] = []): RunStorage {
  const config = resolveStorageOptions(options);
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new StorageError('STORAGE_CLOSED', 'closed');
  };
  const streams = () => {
    let map = backing.namespaces.get(config.namespace);
    if (map === undefined) backing.namespaces.set(config.namespace, (map = new Map()));
    return map;
  };
  const lookup = (streamId: string) => {
    assertOpen();
    assertStreamId(streamId);
    return streams().get(streamId);
  };
  return {
    identity: { adapter: 'reference', version: '0.0.0', namespace: config.namespace, location: 'memory:reference' },
    head: (streamId) => Promise.resolve().then(() => lookup(streamId)?.events.length ?? 0),
    // eslint-disable-next-line @typescript-eslint/require-await -- nothing to await in memory; a generator checks its arguments when iteration starts
    async *read(streamId, readOptions = {}) {
      const after = readOptions.after ?? 0;
      assertRevision(after, 'after');
      const stream = lookup(streamId);
      const head = stream?.events.length ?? 0;
      for (let i = after; i < (faults.includes('liveReads') ? (stream?.events.length ?? 0) : head); i++) {
        yield JSON.parse(JSON.stringify(stream!.events[i])) as StoredEvent;
      }
    },
    async append(streamId, expectedRevision, events) {
      assertOpen();
      const prepared = prepareAppend(config, streamId, expectedRevision, events);
      const work = backing.tail.then(async () => {
        assertOpen();
        const stream = streams().get(streamId) ?? { events: [], texts: [], ids: new Set<string>() };
        if (faults.includes('noRetry') && stream.events.length !== expectedRevision) throw revisionConflict(expectedRevision, stream.events.length);
        const decision = await resolveAgainstHead(prepared, stream.events.length, (from, to) => stream.texts.slice(from - 1, to));
        if (decision !== 'write') return decision;
        const duplicate = prepared.eventIds.find((id) => stream.ids.has(id));
        if (duplicate !== undefined && !faults.includes('noStreamDuplicateCheck')) throw duplicateEventId(duplicate, streamId);
        const kept = faults.includes('keepCallerObjects')
          ? events.map((event, i) => Object.assign(event as unknown as StoredEvent, { envelopeVersion: 1, streamId, revision: expectedRevision + i + 1 }))
          : prepared.events;
        stream.events.push(...kept);
        stream.texts.push(...prepared.texts);
        prepared.eventIds.forEach((id) => stream.ids.add(id));
        streams().set(streamId, stream);
        return prepared.nextHead;
      });
      backing.tail = work.catch(() => undefined);
      return work;
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- as read
    async *streams() {
      assertOpen();
      for (const [streamId, stream] of [...streams()]) yield { streamId, head: stream.events.length };
    },
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}

/** Runs the kit with `create` over one fresh backing. */
async function runKit(create: (backing: ReferenceBacking, options?: StorageOptions) => RunStorage): Promise<StorageConformanceResult> {
  const backing = createReferenceBacking();
  return runStorageConformance({ name: 'reference', create: (options) => create(backing, options), caseTimeoutMs: 10_000 });
}

function failedCases(result: StorageConformanceResult): string[] {
  return [...new Set(result.failures.map((failure) => failure.case))].sort();
}

describe('runStorageConformance', () => {
  it('passes a correct adapter, reports every case, and calls destroy', async () => {
    const backing = createReferenceBacking();
    let destroyed = 0;
    const result = await runStorageConformance({
      name: 'reference',
      create: (options) => createReferenceStorage(backing, options),
      destroy: () => {
        destroyed++;
      },
    });
    expect(result.failures).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.name).toBe('reference');
    expect(result.cases.map((entry) => entry.name)).toEqual(conformanceCaseNames);
    expect(result.cases.every((entry) => entry.ok && entry.rule.length > 0)).toBe(true);
    expect(destroyed).toBe(1);
  });

  it('lists the cases the README documents', () => {
    expect(conformanceCaseNames).toEqual([
      'durable-append-across-reopen',
      'caller-mutation-is-isolated',
      'read-after-is-exclusive',
      'read-sees-finite-head',
      'empty-stream',
      'racing-instances-one-wins',
      'racing-appends-one-instance',
      'conflict-behind-and-ahead',
      'byte-identical-retry',
      'duplicate-event-ids',
      'invalid-batches',
      'malformed-events',
      'bad-stream-ids',
      'odd-unicode-round-trips',
      'payload-limit-boundary',
      'batch-limit-boundary',
      'default-limits',
      'known-secrets',
      'short-known-secrets',
      'namespace-isolation',
      'streams-lists-heads',
      'identity',
      'closed-instance-rejects',
      'read-only-instance',
      'random-operations-match-model',
      'follow-across-instances',
      'follow-abort-ends',
      'follow-after-head',
      'wait-for-append-across-instances',
    ]);
  });

  it('catches an adapter that silently drops appends', async () => {
    const result = await runKit((backing, options) => {
      const inner = createReferenceStorage(backing, options);
      const config = resolveStorageOptions(options);
      return {
        ...inner,
        async append(streamId, expectedRevision, events) {
          const prepared = prepareAppend(config, streamId, expectedRevision, events);
          const head = await inner.head(streamId);
          if (head !== expectedRevision) throw revisionConflict(expectedRevision, head);
          return prepared.nextHead;
        },
      };
    });
    expect(result.ok).toBe(false);
    expect(failedCases(result)).toContain('durable-append-across-reopen');
  });

  it('catches an adapter whose instances never see what other instances append after their first read', async () => {
    const result = await runKit((backing, options) => {
      const inner = createReferenceStorage(backing, options);
      const frozen = new Map<string, number>();
      const frozenHead = async (streamId: string) => {
        if (!frozen.has(streamId)) frozen.set(streamId, await inner.head(streamId));
        return frozen.get(streamId)!;
      };
      return {
        ...inner,
        head: frozenHead,
        async *read(streamId, readOptions = {}) {
          const head = await frozenHead(streamId);
          for await (const event of inner.read(streamId, readOptions)) if (event.revision <= head) yield event;
        },
      };
    });
    expect(result.ok).toBe(false);
    expect(failedCases(result)).toContain('follow-across-instances');
  });

  it('catches an adapter whose instances do not share the backing data', async () => {
    const result = await runKit((_backing, options) => createReferenceStorage(createReferenceBacking(), options));
    expect(result.ok).toBe(false);
    expect(failedCases(result)).toEqual(expect.arrayContaining(['durable-append-across-reopen', 'racing-instances-one-wins']));
  });

  it('catches an adapter that locks only within one instance', async () => {
    // Each instance trusts its own cached head and checks it under its own lock, then writes
    // after an await: two instances both "win" the same revision.
    const result = await runKit((backing, options) => {
      const inner = createReferenceStorage(backing, options);
      const heads = new Map<string, number>();
      let tail: Promise<unknown> = Promise.resolve();
      return {
        ...inner,
        append(streamId, expectedRevision, events) {
          const work = tail.then(async () => {
            const cached = heads.get(streamId) ?? (await inner.head(streamId));
            if (cached !== expectedRevision) throw revisionConflict(expectedRevision, cached);
            await new Promise((resolve) => setTimeout(resolve, 1));
            const actual = await inner.head(streamId);
            const renumbered = events.map((event) => ({ ...event }));
            const head = await inner.append(streamId, actual, renumbered);
            heads.set(streamId, head);
            return expectedRevision + events.length;
          });
          tail = work.catch(() => undefined);
          return work;
        },
      };
    });
    expect(result.ok).toBe(false);
    expect(failedCases(result)).toContain('racing-instances-one-wins');
  });

  it('catches an adapter that ignores the limits option, and only in the limit cases', async () => {
    const result = await runKit((backing, options) => createReferenceStorage(backing, { ...options, limits: undefined }));
    expect(result.ok).toBe(false);
    expect(failedCases(result)).toEqual(['batch-limit-boundary', 'payload-limit-boundary']);
  });

  it('catches an adapter that misses a secret in escaped form, and only in the secrets case', async () => {
    // It screens the raw canonical JSON text only: a secret with a newline or a quote is
    // written escaped there, so it slips through.
    const result = await runKit((backing, options = {}) => {
      const inner = createReferenceStorage(backing, { ...options, knownSecrets: undefined });
      const secrets = options.knownSecrets ?? [];
      return {
        ...inner,
        append(streamId, expectedRevision, events) {
          for (const event of Array.isArray(events) ? events : []) {
            const text = isJson(event) ? canonicalJson(event) : '';
            if (secrets.some((secret) => text.includes(secret))) return Promise.reject(new StorageError('KNOWN_SECRET', 'refused'));
          }
          return inner.append(streamId, expectedRevision, events);
        },
      };
    });
    expect(result.ok).toBe(false);
    // It also skips the shared options check, so it takes short secrets too.
    expect(failedCases(result)).toEqual(['known-secrets', 'short-known-secrets']);
    expect(result.failures[0]!.message).toMatch(/KNOWN_SECRET/);
  });

  it('catches an adapter that takes known secrets shorter than 8 characters, and only in that case', async () => {
    const result = await runKit((backing, options = {}) => {
      const secrets = options.knownSecrets?.filter((secret) => typeof secret === 'string' && [...secret.trim()].length >= 8);
      return createReferenceStorage(backing, { ...options, knownSecrets: secrets });
    });
    expect(failedCases(result)).toEqual(['short-known-secrets']);
    expect(result.failures[0]!.message).toMatch(/INVALID_STORAGE_OPTIONS, but it succeeded/);
  });

  it('catches an adapter that writes a lone surrogate as U+FFFD (as a UTF-8 column would), and only in the Unicode case', async () => {
    const result = await runKit((backing, options) => {
      const inner = createReferenceStorage(backing, options);
      const lossy = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
      return {
        ...inner,
        append(streamId, expectedRevision, events) {
          const mangled = Array.isArray(events)
            ? events.map((event: unknown) => {
                const eventId = (event as Partial<NewEvent> | null)?.eventId;
                return typeof eventId === 'string' && !isWellFormedString(eventId) ? { ...(event as NewEvent), eventId: lossy(eventId) } : event;
              })
            : events;
          return inner.append(streamId, expectedRevision, mangled as NewEvent[]);
        },
      };
    });
    expect(failedCases(result)).toEqual(['odd-unicode-round-trips']);
    expect(result.failures[0]!.message).toMatch(/lone surrogate in event id/);
  });

  it('catches an adapter that normalises Unicode on the way back, and only in the Unicode case', async () => {
    const result = await runKit((backing, options) => {
      const inner = createReferenceStorage(backing, options);
      return {
        ...inner,
        async *read(streamId, readOptions) {
          for await (const event of inner.read(streamId, readOptions)) yield JSON.parse(JSON.stringify(event).normalize('NFC')) as StoredEvent;
        },
      };
    });
    expect(failedCases(result)).toEqual(['odd-unicode-round-trips']);
    expect(result.failures[0]!.message).toMatch(/odd Unicode read back by the writer/);
  });

  it('catches an adapter whose KNOWN_SECRET error repeats the secret', async () => {
    const result = await runKit((backing, options = {}) => {
      const inner = createReferenceStorage(backing, options);
      return {
        ...inner,
        append: (streamId, expectedRevision, events) =>
          inner.append(streamId, expectedRevision, events).catch((error: unknown) => {
            if (!isStorageError(error, 'KNOWN_SECRET')) throw error;
            throw new StorageError('KNOWN_SECRET', `refused: it contains one of ${JSON.stringify(options.knownSecrets)}`);
          }),
      };
    });
    expect(failedCases(result)).toEqual(['known-secrets']);
    expect(result.failures[0]!.message).toMatch(/must not contain the secret/);
    expect(result.failures[0]!.message).not.toContain('sk-conformance');
  });

  it('catches reads that run past the head they started at', async () => {
    const result = await runKit((backing, options) => createReferenceStorage(backing, options, ['liveReads']));
    expect(failedCases(result)).toEqual(['read-sees-finite-head']);
  });

  it('catches an adapter that stores the caller\'s objects', async () => {
    const result = await runKit((backing, options) => createReferenceStorage(backing, options, ['keepCallerObjects']));
    expect(failedCases(result)).toContain('caller-mutation-is-isolated');
  });

  it('catches an adapter that checks duplicate ids only within the batch', async () => {
    const result = await runKit((backing, options) => createReferenceStorage(backing, options, ['noStreamDuplicateCheck']));
    expect(failedCases(result)).toEqual(expect.arrayContaining(['duplicate-event-ids', 'random-operations-match-model']));
  });

  it('catches an adapter that treats a byte-identical retry as a conflict', async () => {
    const result = await runKit((backing, options) => createReferenceStorage(backing, options, ['noRetry']));
    expect(failedCases(result)).toContain('byte-identical-retry');
  });

  it('catches a REVISION_CONFLICT without its details', async () => {
    const result = await runKit((backing, options) => {
      const inner = createReferenceStorage(backing, options);
      return {
        ...inner,
        append: (streamId, expectedRevision, events) =>
          inner.append(streamId, expectedRevision, events).catch((error: unknown) => {
            throw isStorageError(error, 'REVISION_CONFLICT') ? new StorageError('REVISION_CONFLICT', 'conflict') : error;
          }),
      };
    });
    expect(failedCases(result)).toEqual(expect.arrayContaining(['conflict-behind-and-ahead', 'racing-instances-one-wins']));
    expect(result.failures.find((failure) => failure.case === 'conflict-behind-and-ahead')!.message).toMatch(/details/);
  });

  it('catches an adapter that ignores the namespace', async () => {
    const result = await runKit((backing, options) => createReferenceStorage(backing, { ...options, namespace: undefined }));
    expect(failedCases(result)).toEqual(expect.arrayContaining(['identity', 'namespace-isolation']));
  });

  it('catches an instance that keeps working after close', async () => {
    const result = await runKit((backing, options) => ({ ...createReferenceStorage(backing, options), close: () => Promise.resolve() }));
    expect(failedCases(result)).toEqual(['closed-instance-rejects']);
  });

  it('catches an adapter that appends through a read-only instance, and only in that case', async () => {
    // It checks the option, then ignores it.
    const result = await runKit((backing, options) => createReferenceStorage(backing, typeof options?.readOnly === 'boolean' ? { ...options, readOnly: false } : options));
    expect(failedCases(result)).toEqual(['read-only-instance']);
    expect(result.failures[0]!.message).toMatch(/expected STORAGE_READ_ONLY, but it succeeded/);
  });

  it('records a hanging adapter as failures and still finishes, closing every instance it opened', async () => {
    const backing = createReferenceBacking();
    let opened = 0;
    let closed = 0;
    const result = await runStorageConformance({
      name: 'hangs',
      only: ['empty-stream', 'durable-append-across-reopen'],
      caseTimeoutMs: 200,
      create: (options) => {
        opened++;
        const inner = createReferenceStorage(backing, options);
        return {
          ...inner,
          head: () => new Promise<number>(() => undefined),
          close: () => {
            closed++;
            return inner.close();
          },
        };
      },
    });
    expect(result.ok).toBe(false);
    expect(failedCases(result)).toEqual(['durable-append-across-reopen', 'empty-stream']);
    expect(result.failures.every((failure) => /did not finish within 200 ms/.test(failure.message))).toBe(true);
    expect(closed).toBeGreaterThanOrEqual(opened);
  });

  it('never throws for an adapter that throws odd things, fails to open, or returns junk', async () => {
    const throwsStrings = await runStorageConformance({
      name: 'odd',
      only: ['empty-stream'],
      create: () => ({
        ...createReferenceStorage(createReferenceBacking()),
        head: () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          throw 'not an error';
        },
      }),
    });
    expect(throwsStrings.failures[0]!.message).toMatch(/not an error/);
    const cannotOpen = await runStorageConformance({
      name: 'broken',
      only: ['identity'],
      create: () => {
        throw new Error('no backing');
      },
    });
    expect(cannotOpen.failures).toEqual([{ case: 'identity', message: expect.stringMatching(/create\(\) failed: Error: no backing/) }]);
    const junk = await runStorageConformance({ name: 'junk', only: ['identity'], create: () => ({}) as RunStorage });
    expect(junk.failures[0]!.message).toMatch(/not a RunStorage/);
    const badDestroy = await runStorageConformance({
      name: 'destroy',
      only: ['identity'],
      create: (options) => createReferenceStorage(createReferenceBacking(), options),
      destroy: () => Promise.reject(new Error('cannot remove')),
    });
    expect(badDestroy.failures).toEqual([{ case: 'destroy', message: 'unexpected Error: cannot remove' }]);
  });

  it('reports an unknown case name in `only`, and runs the rest', async () => {
    const backing = createReferenceBacking();
    const result = await runStorageConformance({ name: 'reference', only: ['identity', 'no-such-case'], create: (options) => createReferenceStorage(backing, options) });
    expect(result.cases.map((entry) => entry.name)).toEqual(['identity']);
    expect(result.failures).toEqual([{ case: 'options', message: 'only names unknown cases: no-such-case.' }]);
  });

  it('keeps each case in streams of its own, unique to the run', async () => {
    const backing = createReferenceBacking();
    const create = (options?: StorageOptions) => createReferenceStorage(backing, options);
    await runStorageConformance({ name: 'first', only: ['streams-lists-heads'], create });
    const second = await runStorageConformance({ name: 'second', only: ['streams-lists-heads'], create });
    expect(second.ok).toBe(true);
    const names = [...(backing.namespaces.get('default')?.keys() ?? [])];
    expect(names).toHaveLength(6);
    expect(names.every((name) => name.startsWith('conf-') && name.includes('streams-lists-heads'))).toBe(true);
  });

  it('replays the random case from its seed', async () => {
    const events: NewEvent[][] = [];
    for (let run = 0; run < 2; run++) {
      const backing = createReferenceBacking();
      const seen: NewEvent[] = [];
      await runStorageConformance({
        name: 'seeded',
        only: ['random-operations-match-model'],
        seed: 42,
        create: (options) => {
          const inner = createReferenceStorage(backing, options);
          return {
            ...inner,
            append: (streamId, expectedRevision, batch) => {
              seen.push(...batch);
              return inner.append(streamId, expectedRevision, batch);
            },
          };
        },
      });
      events.push(seen);
    }
    expect(events[0]!.length).toBeGreaterThan(50);
    expect(events[1]!.map((event) => canonicalJson(event))).toEqual(events[0]!.map((event) => canonicalJson(event)));
  });
});
