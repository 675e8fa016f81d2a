import { readFileSync } from 'node:fs';
import { isStorageError } from '@roundtable/storage';
import type { NewEvent, RunStorage, StoredEvent } from '@roundtable/storage';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newEvent } from '@roundtable/test-utils';
import { createMemoryBacking, createMemoryStorage } from './index.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const event = (eventId: string, payload: NewEvent['payload'] = { text: eventId }): NewEvent => newEvent(eventId, payload, { correlationId: 'corr' });

async function readAll(storage: RunStorage, streamId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const stored of storage.read(streamId)) events.push(stored);
  return events;
}

async function listAll(storage: RunStorage): Promise<{ streamId: string; head: number }[]> {
  const entries: { streamId: string; head: number }[] = [];
  for await (const entry of storage.streams()) entries.push(entry);
  return entries;
}

describe('createMemoryStorage', () => {
  it('gives each instance made without a backing streams of its own', async () => {
    const first = createMemoryStorage();
    const second = createMemoryStorage();
    await first.append('run-1', 0, [event('a')]);
    expect(await second.head('run-1')).toBe(0);
    expect(await listAll(second)).toEqual([]);
    await second.append('run-1', 0, [event('b')]);
    expect((await readAll(first, 'run-1')).map((stored) => stored.eventId)).toEqual(['a']);
  });

  it('keeps separate backings apart and lets instances over one backing share streams', async () => {
    const one = createMemoryBacking();
    const other = createMemoryBacking();
    const writer = createMemoryStorage({ backing: one });
    await writer.append('run-1', 0, [event('a'), event('b')]);
    await writer.close();
    const reopened = createMemoryStorage({ backing: one });
    expect(await reopened.head('run-1')).toBe(2);
    expect(await listAll(reopened)).toEqual([{ streamId: 'run-1', head: 2 }]);
    expect(await createMemoryStorage({ backing: other }).head('run-1')).toBe(0);
    expect(await createMemoryStorage({ backing: one, namespace: 'elsewhere' }).head('run-1')).toBe(0);
  });

  it('reports its identity: adapter, package version, namespace and backing', () => {
    const backing = createMemoryBacking();
    const storage = createMemoryStorage({ backing, namespace: 'team-a' });
    expect(storage.identity).toEqual({ adapter: '@roundtable/storage-memory', version: packageVersion, namespace: 'team-a', location: `memory:${backing.id}` });
    expect(createMemoryStorage({ backing }).identity.location).toBe(storage.identity.location);
    expect(createMemoryStorage({ backing: createMemoryBacking() }).identity.location).not.toBe(storage.identity.location);
    expect(createMemoryStorage().identity.namespace).toBe('default');
  });

  it('refuses bad options and a backing it did not make with INVALID_STORAGE_OPTIONS', () => {
    const refuses = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return isStorageError(error, 'INVALID_STORAGE_OPTIONS');
      }
      return false;
    };
    expect(refuses(() => createMemoryStorage({ backing: Object.freeze({ id: 'forged' }) }))).toBe(true);
    expect(refuses(() => createMemoryStorage({ namespace: 'no/slashes' }))).toBe(true);
    expect(refuses(() => createMemoryStorage({ limits: { maxEventPayloadBytes: -1 } }))).toBe(true);
    expect(refuses(() => createMemoryStorage({ knownSecrets: [''] }))).toBe(true);
    // SPEC 11.2: shorter than 8 characters after trimming.
    expect(refuses(() => createMemoryStorage({ knownSecrets: ['  hunter2  '] }))).toBe(true);
    expect(refuses(() => createMemoryStorage({ knownSecrets: ['long-enough-\ud800'] }))).toBe(true);
  });

  it('hands out deeply frozen events, so a reader cannot change what others read', async () => {
    const storage = createMemoryStorage();
    await storage.append('run-1', 0, [event('a', { list: [1, { deep: true }] })]);
    const [stored] = await readAll(storage, 'run-1');
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen((stored!.payload as { list: unknown[] }).list[1])).toBe(true);
    expect(() => (stored!.payload as { list: unknown[] }).list.push(2)).toThrow(TypeError);
  });

  it('reads back every envelope field of every event, also where events of one stream differ in correlation id, version or causation', async () => {
    const storage = createMemoryStorage();
    const appended: NewEvent[] = [
      { ...event('a'), correlationId: 'first', version: 1 },
      { ...event('b'), correlationId: 'second', version: 1, causationId: 'a' },
      { ...event('c'), correlationId: 'first', version: 3, type: 'demo:other', timestamp: '2030-01-01T00:00:00.000Z' },
      { ...event('d'), correlationId: 'first', version: 1 },
    ];
    await storage.append('run-1', 0, appended.slice(0, 2));
    await storage.append('run-1', 2, appended.slice(2));
    const expected = appended.map((written, index) => ({ envelopeVersion: 1, streamId: 'run-1', revision: index + 1, ...written }));
    expect(await readAll(storage, 'run-1')).toEqual(expected);
    // A byte-identical retry of the first batch is answered from the kept fields; a changed one conflicts.
    expect(await storage.append('run-1', 0, appended.slice(0, 2))).toBe(2);
    await expect(storage.append('run-1', 0, [appended[0]!, { ...appended[1]!, correlationId: 'first' }])).rejects.toMatchObject({ code: 'REVISION_CONFLICT' });
    // Two reads of one event: equal, frozen envelopes sharing one frozen payload.
    const [again] = await readAll(storage, 'run-1');
    const [first] = await readAll(storage, 'run-1');
    expect(again).toEqual(first);
    expect(Object.isFrozen(again)).toBe(true);
    expect(again!.payload).toBe(first!.payload);
  });

  it('reads back any appended batches exactly, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }), async (batches) => {
        const storage = createMemoryStorage();
        let head = 0;
        const expected: unknown[] = [];
        for (const [b, payloads] of batches.entries()) {
          const events = payloads.map((payload, i) => event(`e${b}-${i}`, payload as NewEvent['payload']));
          head = await storage.append('run-1', head, events);
          expected.push(...events.map((appended) => JSON.parse(JSON.stringify(appended)) as unknown));
        }
        const read = await readAll(storage, 'run-1');
        expect(read.map((stored) => stored.revision)).toEqual(expected.map((_, i) => i + 1));
        expect(read.map(({ envelopeVersion: _v, streamId: _s, revision: _r, ...rest }) => JSON.parse(JSON.stringify(rest)) as unknown)).toEqual(expected);
      }),
      { numRuns: 50 },
    );
  });

  it('reads back every event id and causation id exactly, whether or not it is a UUID the adapter packs into bytes', async () => {
    // The adapter keeps canonical lowercase UUID texts as 16 bytes and every other id as its
    // string; each of these must read back as it was written and count for duplicates.
    const ids = [
      '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b',
      '0F8E7D6C-5B4A-4938-8271-605F4E3D2C1B', // uppercase: the same bytes, another text
      '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1g', // not hex
      '0f8e7d6c05b4a-4938-8271-605f4e3d2c1b', // a digit where a dash goes
      '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1', // 35 characters
      'ünïcødé-événement-✓',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      'evt-1',
    ];
    const storage = createMemoryStorage();
    const appended: NewEvent[] = ids.map((id, index) => ({
      ...event(id),
      // Causation ids naming an earlier event (packed or not), the event itself, one not in the stream, and null.
      causationId: index === 0 ? null : index === 3 ? id : index === 4 ? 'elsewhere' : index === 5 ? '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1a' : ids[index - 1]!,
    }));
    await storage.append('run-1', 0, appended.slice(0, 4));
    await storage.append('run-1', 4, appended.slice(4));
    const read = await readAll(storage, 'run-1');
    expect(read).toEqual(appended.map((written, index) => ({ envelopeVersion: 1, streamId: 'run-1', revision: index + 1, ...written })));
    for (const id of ids) {
      await expect(storage.append('run-1', ids.length, [event(id)])).rejects.toMatchObject({ code: 'DUPLICATE_EVENT_ID' });
    }
    // Ids one character away from a kept one are not duplicates.
    expect(await storage.append('run-1', ids.length, [event('0f8e7d6c-5b4a-4938-8271-605f4e3d2c1c'), event('evt-2')])).toBe(ids.length + 2);
  });

  it('finds every earlier id of a long stream as a duplicate and a causation, past many growths of its id table and several chunks of its columns', async () => {
    const storage = createMemoryStorage();
    const uuid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${(n * 7919).toString(16).padStart(12, '0')}`;
    const id = (n: number) => (n % 5 === 0 ? `plain-${n}` : uuid(n));
    // Chunks of 4,096 events: three of them, the first grown from 16.
    const count = 9000;
    let head = 0;
    for (let n = 0; n < count; n += 3) {
      head = await storage.append('run-1', head, [0, 1, 2].map((k) => ({ ...event(id(n + k), { n: n + k }), causationId: n + k === 0 ? null : id(Math.floor((n + k) / 2)), type: `demo:type-${(n + k) % 7}` })));
    }
    const read = await readAll(storage, 'run-1');
    expect(read.map((stored) => stored.eventId)).toEqual(Array.from({ length: count }, (_, n) => id(n)));
    expect(read.map((stored) => stored.causationId)).toEqual(Array.from({ length: count }, (_, n) => (n === 0 ? null : id(Math.floor(n / 2)))));
    expect(read.map((stored) => stored.type)).toEqual(Array.from({ length: count }, (_, n) => `demo:type-${n % 7}`));
    // The last few ids are also in the column's ring of recent ids: the duplicate check must not depend on it.
    for (const n of [0, 1, 5, 1234, 4095, 4096, 8191, 8990, 8991, 8992, 8993, 8994, 8995, 8996, 8997, 8998, 8999]) {
      await expect(storage.append('run-1', count, [event(id(n))])).rejects.toMatchObject({ code: 'DUPLICATE_EVENT_ID' });
    }
    expect(await storage.append('run-1', count, [event(uuid(count)), event(`plain-${count}`)])).toBe(count + 2);
  });

  it('rejects a queued append once its instance is closed', async () => {
    const backing = createMemoryBacking();
    const storage = createMemoryStorage({ backing });
    const pending = storage.append('run-1', 0, [event('a')]);
    await storage.close();
    await expect(pending).rejects.toMatchObject({ code: 'STORAGE_CLOSED' });
    expect(await createMemoryStorage({ backing }).head('run-1')).toBe(0);
  });
});
