import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isStorageError } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import packageJson from '../package.json' with { type: 'json' };
import { createFsStorage } from './index.js';
import { collect, listFiles, newEvent, newEvents, permissions, removeTempDirectories, storageError, tempDirectory } from './__fixtures__/support.js';

afterAll(removeTempDirectories);

function open(directory: string, options: { namespace?: string; knownSecrets?: string[]; limits?: { maxEventPayloadBytes?: number; maxAppendBatchBytes?: number } } = {}) {
  return createFsStorage({ directory, ...options });
}

describe('createFsStorage', () => {
  it('reports its identity with the real absolute directory', () => {
    const directory = tempDirectory();
    const storage = open(join(directory, 'records'), { namespace: 'team-a' });
    expect(storage.identity).toEqual({
      adapter: '@roundtable/storage-fs',
      version: packageJson.version,
      namespace: 'team-a',
      location: realpathSync(join(directory, 'records')),
    });
    expect(open(directory).identity.namespace).toBe('default');
  });

  it('appends, reads and reports heads, and a second instance sees the same stream', async () => {
    const directory = tempDirectory();
    const storage = open(directory);
    expect(await storage.head('run-1')).toBe(0);
    expect(await collect(storage.read('run-1'))).toEqual([]);
    expect(await storage.append('run-1', 0, newEvents('a', 2))).toBe(2);
    expect(await storage.append('run-1', 2, newEvents('b', 3))).toBe(5);
    const events = await collect(storage.read('run-1'));
    expect(events.map((event) => [event.revision, event.eventId])).toEqual([
      [1, 'a-0'],
      [2, 'a-1'],
      [3, 'b-0'],
      [4, 'b-1'],
      [5, 'b-2'],
    ]);
    expect(events[0]).toEqual({ ...newEvent('a-0'), envelopeVersion: 1, streamId: 'run-1', revision: 1 });
    expect((await collect(storage.read('run-1', { after: 3 }))).map((event) => event.revision)).toEqual([4, 5]);
    expect(await collect(storage.read('run-1', { after: 5 }))).toEqual([]);
    expect(await collect(storage.read('run-1', { after: 50 }))).toEqual([]);

    const reopened = open(directory);
    expect(await reopened.head('run-1')).toBe(5);
    expect(await collect(reopened.read('run-1', { after: 1 }))).toEqual(events.slice(1));
    expect(await reopened.append('run-1', 5, newEvents('c', 1))).toBe(6);
    expect(await storage.head('run-1')).toBe(6);
  });

  it('reads up to the head at the moment iteration starts', async () => {
    const storage = open(tempDirectory());
    await storage.append('run', 0, newEvents('a', 2));
    const seen: number[] = [];
    for await (const event of storage.read('run')) {
      seen.push(event.revision);
      if (seen.length === 1) await storage.append('run', 2, newEvents('b', 2));
    }
    expect(seen).toEqual([1, 2]);
    expect(await storage.head('run')).toBe(4);
  });

  it('refuses a stale expected revision with REVISION_CONFLICT and its details', async () => {
    const storage = open(tempDirectory());
    await storage.append('run', 0, newEvents('a', 2));
    const error = await storageError(() => storage.append('run', 1, newEvents('x', 1)), 'REVISION_CONFLICT');
    expect(error.details).toEqual({ expectedRevision: 1, actualRevision: 2 });
    const ahead = await storageError(() => storage.append('run', 5, newEvents('y', 1)), 'REVISION_CONFLICT');
    expect(ahead.details).toEqual({ expectedRevision: 5, actualRevision: 2 });
  });

  it('returns the committed head for a byte-identical retry and writes nothing', async () => {
    const directory = tempDirectory();
    const first = open(directory);
    const batch = newEvents('a', 3);
    expect(await first.append('run', 0, batch)).toBe(3);
    await first.append('run', 3, newEvents('b', 1));
    const folder = join(directory, 'default', 'run');
    const before = listFiles(folder);
    expect(await first.append('run', 0, batch)).toBe(3);
    expect(await open(directory).append('run', 0, batch)).toBe(3);
    expect(listFiles(folder)).toEqual(before);
    // Same ids, different content: a conflict, not a retry.
    await storageError(() => first.append('run', 0, [newEvent('a-0', { other: true }), ...batch.slice(1)]), 'REVISION_CONFLICT');
  });

  it('refuses an event id already in the stream or repeated in the batch', async () => {
    const storage = open(tempDirectory());
    await storage.append('run', 0, newEvents('a', 2));
    const error = await storageError(() => storage.append('run', 2, [newEvent('new'), newEvent('a-1')]), 'DUPLICATE_EVENT_ID');
    expect(error.details).toMatchObject({ eventId: 'a-1' });
    await storageError(() => storage.append('run', 2, [newEvent('x'), newEvent('x')]), 'DUPLICATE_EVENT_ID');
    expect(await storage.head('run')).toBe(2);
  });

  it('writes nothing at all — no stream folder, no temp file — for refused batches', async () => {
    const directory = tempDirectory();
    const storage = open(directory, { knownSecrets: ['sk-live-123'], limits: { maxEventPayloadBytes: 100, maxAppendBatchBytes: 1000 } });
    await storageError(() => storage.append('run', 0, [newEvent('a', { token: 'sk-live-123' })]), 'KNOWN_SECRET');
    await storageError(() => storage.append('run', 0, [newEvent('a', { text: 'x'.repeat(200) })]), 'STORAGE_LIMIT_EXCEEDED');
    await storageError(() => storage.append('run', 0, newEvents('a', 10).map((event) => ({ ...event, payload: 'y'.repeat(90) }))), 'STORAGE_LIMIT_EXCEEDED');
    await storageError(() => storage.append('run', 0, []), 'INVALID_STORED_VALUE');
    await storageError(() => storage.append('run', 0, [{ ...newEvent('a'), timestamp: 'yesterday' }]), 'INVALID_STORED_VALUE');
    await storageError(() => storage.append('bad/id', 0, newEvents('a', 1)), 'INVALID_STORED_VALUE');
    expect(listFiles(join(directory, 'default'))).toEqual(['.tmp']);
    expect(listFiles(join(directory, 'default', '.tmp'))).toEqual([]);
  });

  it('validates stream ids and read options', async () => {
    const storage = open(tempDirectory());
    await storageError(() => storage.head('../escape'), 'INVALID_STORED_VALUE');
    await storageError(() => collect(storage.read('.tmp')), 'INVALID_STORED_VALUE');
    await storageError(() => collect(storage.read('run', { after: -1 })), 'INVALID_STORED_VALUE');
    await storageError(() => collect(storage.read('run', { after: 1.5 })), 'INVALID_STORED_VALUE');
  });

  it('refuses bad options with INVALID_STORAGE_OPTIONS', () => {
    const directory = tempDirectory();
    for (const options of [undefined, {}, { directory: '' }, { directory: 42 }, { directory, namespace: '../up' }, { directory, namespace: '.tmp' }, { directory, knownSecrets: [''] }, { directory, knownSecrets: ['  hunter2  '] }, { directory, knownSecrets: ['long-enough-\ud800'] }]) {
      let caught: unknown;
      try {
        createFsStorage(options as never);
      } catch (error) {
        caught = error;
      }
      expect(isStorageError(caught, 'INVALID_STORAGE_OPTIONS'), JSON.stringify(options)).toBe(true);
    }
  });

  it('keeps namespaces apart', async () => {
    const directory = tempDirectory();
    const alpha = open(directory, { namespace: 'alpha' });
    const beta = open(directory, { namespace: 'beta' });
    await alpha.append('run', 0, newEvents('a', 2));
    expect(await beta.head('run')).toBe(0);
    await beta.append('run', 0, newEvents('a', 1));
    expect(await alpha.head('run')).toBe(2);
    expect(await collect(alpha.streams())).toEqual([{ streamId: 'run', head: 2 }]);
    expect(await collect(beta.streams())).toEqual([{ streamId: 'run', head: 1 }]);
    expect(await collect(open(directory).streams())).toEqual([]);
  });

  it('treats stream ids and namespaces that differ only in case as different, with different folders', async () => {
    const directory = tempDirectory();
    const lower = open(directory, { namespace: 'team' });
    const upper = open(directory, { namespace: 'Team' });
    await lower.append('run', 0, newEvents('l', 1));
    await lower.append('Run', 0, newEvents('u', 2));
    await lower.append('RUN', 0, newEvents('U', 3));
    await upper.append('run', 0, newEvents('x', 4));
    expect(await collect(lower.streams())).toEqual([
      { streamId: 'RUN', head: 3 },
      { streamId: 'Run', head: 2 },
      { streamId: 'run', head: 1 },
    ]);
    expect(await collect(upper.streams())).toEqual([{ streamId: 'run', head: 4 }]);
    // Folder names stay distinct even where the filesystem ignores case.
    expect(listFiles(join(directory, 'team'))).toEqual(['.tmp', 'RUN~7', 'Run~1', 'run']);
    expect(listFiles(directory)).toEqual(['Team~1', 'team']);
    const folders = listFiles(join(directory, 'team')).map((name) => name.toLowerCase());
    expect(new Set(folders).size).toBe(folders.length);
  });

  it('lists streams in id order with their heads, and not streams without events', async () => {
    const directory = tempDirectory();
    const storage = open(directory);
    expect(await collect(storage.streams())).toEqual([]);
    await storage.append('b', 0, newEvents('b', 2));
    await storage.append('a', 0, newEvents('a', 1));
    mkdirSync(join(directory, 'default', 'empty'), { mode: 0o700 });
    expect(await collect(storage.streams())).toEqual([
      { streamId: 'a', head: 1 },
      { streamId: 'b', head: 2 },
    ]);
  });

  it('rejects every call after close with STORAGE_CLOSED, and close waits for appends in flight', async () => {
    const directory = tempDirectory();
    const storage = open(directory);
    const pending = storage.append('run', 0, newEvents('a', 2));
    await storage.close();
    expect(await pending).toBe(2);
    await storageError(() => storage.head('run'), 'STORAGE_CLOSED');
    await storageError(() => storage.append('run', 2, newEvents('b', 1)), 'STORAGE_CLOSED');
    await storageError(() => collect(storage.read('run')), 'STORAGE_CLOSED');
    await storageError(() => collect(storage.streams()), 'STORAGE_CLOSED');
    await storage.close();
    expect(await open(directory).head('run')).toBe(2);
  });

  it('stops a read still being iterated when the instance closes', async () => {
    const directory = tempDirectory();
    const writer = open(directory);
    let head = 0;
    for (let batch = 0; batch < 20; batch++) head = await writer.append('run', head, newEvents(`b${batch}`, 2));
    const storage = open(directory);
    const iterator = storage.read('run')[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ revision: 1 });
    await storage.close();
    await storageError(async () => {
      for (let step = 0; step < 40; step++) await iterator.next();
    }, 'STORAGE_CLOSED');
  });

  it('iterates a read as an async generator would: lazily, in order however next() is called, once past a failure, and stopped by return()', async () => {
    const directory = tempDirectory();
    const writer = open(directory);
    let head = 0;
    for (let batch = 0; batch < 6; batch++) head = await writer.append('run', head, newEvents(`b${batch}`, 3));
    const storage = open(directory);
    // Nothing runs before the first next(): a bad id fails there, not at read().
    const bad = storage.read('bad/id');
    await storageError(() => bad[Symbol.asyncIterator]().next(), 'INVALID_STORED_VALUE');
    // The head is taken when iteration starts, not when read() is called.
    const late = storage.read('run')[Symbol.asyncIterator]();
    head = await writer.append('run', head, newEvents('late', 2));
    expect((await collect({ [Symbol.asyncIterator]: () => late })).length).toBe(20);
    // next() called many times without waiting: every event once, in order, then done.
    const eager = storage.read('run', { after: 4 })[Symbol.asyncIterator]();
    const results = await Promise.all(Array.from({ length: 18 }, () => eager.next()));
    expect(results.map((result) => (result.done === true ? 'done' : result.value.revision))).toEqual([...Array.from({ length: 16 }, (_, index) => index + 5), 'done', 'done']);
    // Stopped in the middle of a batch: later calls are done, and a new read starts over.
    const stopped = storage.read('run')[Symbol.asyncIterator]();
    expect((await stopped.next()).value).toMatchObject({ revision: 1 });
    expect(await stopped.return?.()).toEqual({ value: undefined, done: true });
    expect(await stopped.next()).toEqual({ value: undefined, done: true });
    for await (const event of storage.read('run')) if (event.revision === 2) break;
    expect((await collect(storage.read('run'))).map((event) => event.revision)).toEqual(Array.from({ length: head }, (_, index) => index + 1));
    // A failure is thrown once, then the iteration is over.
    await storage.close();
    const closed = storage.read('run')[Symbol.asyncIterator]();
    await storageError(() => closed.next(), 'STORAGE_CLOSED');
    expect(await closed.next()).toEqual({ value: undefined, done: true });
  });

  it('creates directories 0700 and files 0600 whatever the umask', async () => {
    const directory = tempDirectory();
    const previous = process.umask(0o277);
    let storage: RunStorage;
    try {
      storage = open(join(directory, 'deep', 'records'));
      await storage.append('run', 0, newEvents('a', 1));
    } finally {
      process.umask(previous);
    }
    const permissive = process.umask(0);
    try {
      await storage.append('run', 1, newEvents('b', 1));
      await open(join(directory, 'deep', 'records'), { namespace: 'other' }).append('s', 0, newEvents('c', 1));
    } finally {
      process.umask(permissive);
    }
    const records = join(directory, 'deep', 'records');
    for (const folder of [join(directory, 'deep'), records, join(records, 'default'), join(records, 'default', '.tmp'), join(records, 'default', 'run'), join(records, 'other', 's')]) {
      expect(permissions(folder), folder).toBe(0o700);
    }
    for (const file of ['0000000000000001.batch', '0000000000000002.batch']) expect(permissions(join(records, 'default', 'run', file))).toBe(0o600);
    expect(permissions(join(records, 'other', 's', '0000000000000001.batch'))).toBe(0o600);
  });

  it('lets exactly one of many instances win a race on one expected revision', async () => {
    const directory = tempDirectory();
    for (let round = 0; round < 20; round++) {
      const instances = Array.from({ length: 4 }, () => open(directory));
      const results = await Promise.allSettled(instances.map((storage, index) => storage.append('race', round * 2, newEvents(`r${round}-i${index}`, 2))));
      const wins = results.filter((result) => result.status === 'fulfilled');
      expect(wins).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') expect(isStorageError(result.reason, 'REVISION_CONFLICT')).toBe(true);
      }
    }
    const events = await collect(open(directory).read('race'));
    expect(events.map((event) => event.revision)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
  });

  it('agrees with a simple model under any sequence of appends from two instances (property)', async () => {
    const operation = fc.record({
      instance: fc.integer({ min: 0, max: 1 }),
      stream: fc.constantFrom('a', 'B'),
      size: fc.integer({ min: 1, max: 3 }),
      offset: fc.constantFrom(-1, 0, 0, 0, 1),
      reuseId: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 12 }), async (operations) => {
        const directory = tempDirectory();
        const instances = [open(directory), open(directory)];
        const model = new Map<string, string[]>();
        let counter = 0;
        for (const { instance, stream, size, offset, reuseId } of operations) {
          const ids = model.get(stream) ?? [];
          const expected = Math.max(0, ids.length + offset);
          const batch = Array.from({ length: size }, () => `e${counter++}`);
          if (reuseId && ids.length > 0) batch[size - 1] = ids[0]!;
          const outcome = await instances[instance]!.append(stream, expected, batch.map((id) => newEvent(id))).then(
            (head) => ({ head }),
            (error: unknown) => ({ code: isStorageError(error) ? error.code : String(error) }),
          );
          const retry = expected + size <= ids.length && batch.every((id, index) => ids[expected + index] === id);
          if (retry) expect(outcome).toEqual({ head: expected + size });
          else if (expected !== ids.length) expect(outcome).toEqual({ code: 'REVISION_CONFLICT' });
          else if (batch.some((id) => ids.includes(id))) expect(outcome).toEqual({ code: 'DUPLICATE_EVENT_ID' });
          else {
            expect(outcome).toEqual({ head: ids.length + size });
            model.set(stream, [...ids, ...batch]);
          }
        }
        const fresh = open(directory);
        for (const [stream, ids] of model) {
          expect((await collect(fresh.read(stream))).map((event) => event.eventId)).toEqual(ids);
          expect(await instances[0]!.head(stream)).toBe(ids.length);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('removes temp files left by dead writers on this machine and old ones, and leaves the rest', () => {
    const directory = tempDirectory();
    open(directory);
    const temp = join(directory, 'default', '.tmp');
    const tag = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
    const deadPid = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const random = '0123456789abcdef';
    const names = {
      dead: `${tag}-${deadPid}-${random}.tmp`,
      live: `${tag}-${process.ppid}-${random}.tmp`,
      otherHost: `${tag === 'ffffffff' ? '00000000' : 'ffffffff'}-${deadPid}-${random}.tmp`,
      oldOtherHost: `${tag === 'ffffffff' ? '00000000' : 'ffffffff'}-${process.ppid}-fedcba9876543210.tmp`,
      foreign: 'notes.txt',
    };
    for (const name of Object.values(names)) writeFileSync(join(temp, name), 'partial batch');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(temp, names.oldOtherHost), twoHoursAgo, twoHoursAgo);
    open(directory);
    expect(listFiles(temp)).toEqual([names.foreign, names.live, names.otherHost].sort());
  });

  it('creates missing ancestors and writes self-describing batch files', async () => {
    const directory = tempDirectory();
    const storage = open(join(directory, 'a', 'b', 'c'));
    await storage.append('run', 0, newEvents('a', 1));
    expect(lstatSync(join(directory, 'a', 'b', 'c')).isDirectory()).toBe(true);
    expect(existsSync(join(directory, 'a', 'b', 'c', 'default', 'run', '0000000000000001.batch'))).toBe(true);
    const text = readFileSync(join(directory, 'a', 'b', 'c', 'default', 'run', '0000000000000001.batch'), 'utf8');
    expect(text.split('\n')[0]).toMatch(/^roundtable-fs-batch version=1 stream=run first=1 count=1 bytes=\d+ sha256=[0-9a-f]{64}$/);
  });

  it('writes each batch file as its header line and the canonical texts, whatever the characters and length', async () => {
    // The file is encoded into one buffer, the header placed before the body: check the bytes
    // whole against the format, for multi-byte text and for batches small and large.
    const directory = tempDirectory();
    const storage = open(directory);
    let head = 0;
    for (const [index, text] of ['plain', 'accents éèà, emoji 🙂, CJK 漢字', 'x'.repeat(70_000), ''].entries()) {
      const events = [newEvent(`u${index}-a`, { text }), newEvent(`u${index}-b`, { text: `${text}!`, index })];
      const first = head + 1;
      head = await storage.append('run', head, events);
      const bytes = readFileSync(join(directory, 'default', 'run', `${String(first).padStart(16, '0')}.batch`));
      const texts = (await collect(open(directory).read('run', { after: first - 1 }))).map(({ eventId, type, version, timestamp, correlationId, causationId, payload, revision }) =>
        JSON.stringify({ causationId, correlationId, envelopeVersion: 1, eventId, payload, revision, streamId: 'run', timestamp, type, version }),
      );
      const body = Buffer.from(`${texts.join('\n')}\n`, 'utf8');
      const sha = createHash('sha256').update(body).digest('hex');
      expect(bytes.equals(Buffer.concat([Buffer.from(`roundtable-fs-batch version=1 stream=run first=${first} count=2 bytes=${body.length} sha256=${sha}\n`), body]))).toBe(true);
    }
  });
});
