import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageError } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import { DEFAULT_BUSY_TIMEOUT_MS, SQLITE_SCHEMA_VERSION, createSqliteStorage } from './index.js';
import type { SqliteStorageOptions } from './index.js';
import packageJson from '../package.json' with { type: 'json' };
import { newBatch, newEvent, readAll, rejection, tempDirectory } from '../test/__fixtures__/helpers.js';

let directory: string;
let cleanup: () => void;
let open: RunStorage[];

beforeEach(() => {
  ({ directory, cleanup } = tempDirectory());
  open = [];
});

afterEach(async () => {
  await Promise.all(open.map((storage) => storage.close()));
  cleanup();
});

function storageAt(filename: string, options: Partial<SqliteStorageOptions> = {}): RunStorage {
  const storage = createSqliteStorage({ filename, ...options });
  open.push(storage);
  return storage;
}

function rawConnection(filename: string): Database.Database {
  const db = new Database(filename);
  afterEachClose.push(db);
  return db;
}
const afterEachClose: Database.Database[] = [];
afterEach(() => {
  for (const db of afterEachClose.splice(0)) db.close();
});

describe('createSqliteStorage options', () => {
  const invalid: [string, unknown][] = [
    ['no options', undefined],
    ['no filename', {}],
    ['an empty filename', { filename: '' }],
    ['a non-string filename', { filename: 42 }],
    ['an in-memory database', { filename: ':memory:' }],
    ['a filename with surrounding spaces', { filename: ' runs.db' }],
    ['a filename with a NUL', { filename: 'runs\0.db' }],
    ['an unknown synchronous mode', { filename: 'x.db', synchronous: 'off' }],
    ['a negative busy timeout', { filename: 'x.db', busyTimeoutMs: -1 }],
    ['a fractional busy timeout', { filename: 'x.db', busyTimeoutMs: 1.5 }],
    ['a busy timeout past a C int', { filename: 'x.db', busyTimeoutMs: 2 ** 31 }],
    ['a string busy timeout', { filename: 'x.db', busyTimeoutMs: '100' }],
    ['an invalid namespace', { filename: 'x.db', namespace: '../up' }],
    ['an invalid limit', { filename: 'x.db', limits: { maxEventPayloadBytes: 0 } }],
    ['invalid known secrets', { filename: 'x.db', knownSecrets: [''] }],
    ['a known secret shorter than 8 characters after trimming', { filename: 'x.db', knownSecrets: ['  hunter2  '] }],
    ['a known secret with a lone surrogate', { filename: 'x.db', knownSecrets: ['long-enough-\ud800'] }],
  ];
  it.each(invalid)('refuses %s with INVALID_STORAGE_OPTIONS', (_, options) => {
    let thrown: unknown;
    try {
      createSqliteStorage(options as SqliteStorageOptions);
    } catch (error) {
      thrown = error;
    }
    expect(isStorageError(thrown, 'INVALID_STORAGE_OPTIONS')).toBe(true);
  });

  it('reports its identity with the absolute path of the file', () => {
    const storage = storageAt(join(directory, 'runs.db'), { namespace: 'team-a' });
    expect(storage.identity).toEqual({ adapter: '@roundtable/storage-sqlite', version: packageJson.version, namespace: 'team-a', location: join(directory, 'runs.db') });
    expect(storageAt(join(directory, 'other.db')).identity.namespace).toBe('default');
    expect(DEFAULT_BUSY_TIMEOUT_MS).toBe(5000);
  });

  it('resolves a relative filename against the working directory', () => {
    const storage = storageAt(relative(process.cwd(), join(directory, 'rel.db')));
    expect(storage.identity.location).toBe(join(directory, 'rel.db'));
  });

  it('creates a missing parent directory 0700 and the database files 0600', async () => {
    const filename = join(directory, 'nested', 'deeper', 'runs.db');
    const storage = storageAt(filename);
    await storage.append('run-1', 0, newBatch('e', 3));
    expect(statSync(join(directory, 'nested', 'deeper')).mode & 0o777).toBe(0o700);
    for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) expect(statSync(file).mode & 0o077).toBe(0);
  });

  it('refuses a file that is not a SQLite database, typed', () => {
    const filename = join(directory, 'notes.txt');
    writeFileSync(filename, 'these are not the pages you are looking for '.repeat(200));
    let thrown: unknown;
    try {
      createSqliteStorage({ filename });
    } catch (error) {
      thrown = error;
    }
    expect(isStorageError(thrown, 'CORRUPT_EVENT_STREAM')).toBe(true);
  });
});

describe('a database path the file system cannot hold is a typed error, never a raw Node error', () => {
  const opening = (filename: string): unknown => {
    try {
      storageAt(filename);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it.each([
    ['under a regular file', () => (writeFileSync(join(directory, 'file'), 'x'), join(directory, 'file', 'runs.db'))],
    ['deep under a regular file', () => (writeFileSync(join(directory, 'file'), 'x'), join(directory, 'file', 'a', 'runs.db'))],
    ['a directory', () => (mkdirSync(join(directory, 'runs.db')), join(directory, 'runs.db'))],
    ['a symlink to a directory', () => (mkdirSync(join(directory, 'folder')), symlinkSync(join(directory, 'folder'), join(directory, 'runs.db')), join(directory, 'runs.db'))],
    ['a FIFO', () => (execFileSync('mkfifo', [join(directory, 'runs.db')]), join(directory, 'runs.db'))],
    ['a dangling symlink', () => (symlinkSync(join(directory, 'missing.db'), join(directory, 'runs.db')), join(directory, 'runs.db'))],
    ['under a symlink loop', () => (symlinkSync(join(directory, 'loop'), join(directory, 'loop')), join(directory, 'loop', 'runs.db'))],
  ])('a filename %s is UNSAFE_STORAGE_PATH', (_label, make) => {
    const error = opening(make());
    expect(isStorageError(error, 'UNSAFE_STORAGE_PATH'), String(error)).toBe(true);
    expect(existsSync(join(directory, 'missing.db'))).toBe(false);
  });

  it('a filename longer than the file system allows is INVALID_STORAGE_OPTIONS', () => {
    expect(isStorageError(opening(join(directory, `${'x'.repeat(300)}.db`)), 'INVALID_STORAGE_OPTIONS')).toBe(true);
  });
});

describe('values SQLite could not store faithfully', () => {
  it('refuses a lone surrogate in an event id (or any field) at append, and the stream stays readable', async () => {
    const filename = join(directory, 'runs.db');
    const storage = storageAt(filename);
    await storage.append('run', 0, [newEvent('first')]);
    for (const event of [newEvent('lone-\ud800'), { ...newEvent('ok-1'), correlationId: '\udc00' }, { ...newEvent('ok-2'), type: 'x\udbff' }, newEvent('ok-3', { text: '\ud83d' })]) {
      expect(isStorageError(await rejection(storage.append('run', 1, [event])), 'INVALID_STORED_VALUE')).toBe(true);
    }
    const odd = newEvent('astral-😀-e\u0301-\u2028-\ufeff-\uffff', { text: 'nul\u0000 \u2029 😀' });
    expect(await storage.append('run', 1, [odd])).toBe(2);
    const events = await readAll(storageAt(filename), 'run');
    expect(events.map((event) => event.eventId)).toEqual(['first', odd.eventId]);
    expect(events[1]!.payload).toEqual(odd.payload);
  });
});

describe('a truncated database file', () => {
  it.each([1, 99, 100, 2048])('cut to %i bytes fails closed with CORRUPT_EVENT_STREAM and is left as it is, not made a fresh database', async (size) => {
    const filename = join(directory, 'runs.db');
    const storage = createSqliteStorage({ filename });
    await storage.append('run', 0, newBatch('a', 3));
    await storage.close();
    truncateSync(filename, size);
    const cut = readFileSync(filename);
    let thrown: unknown;
    try {
      storageAt(filename);
    } catch (error) {
      thrown = error;
    }
    expect(isStorageError(thrown, 'CORRUPT_EVENT_STREAM'), String(thrown)).toBe(true);
    expect(readFileSync(filename).equals(cut)).toBe(true);
  });

  it('an empty file (created, never written by SQLite) opens as a new database', async () => {
    const filename = join(directory, 'runs.db');
    writeFileSync(filename, '');
    const storage = storageAt(filename);
    expect(await storage.head('run')).toBe(0);
    expect(await storage.append('run', 0, newBatch('a', 1))).toBe(1);
  });
});

describe('schema and pragmas', () => {
  it('puts the file in WAL mode and records the schema version in the migration table', async () => {
    const filename = join(directory, 'runs.db');
    const storage = storageAt(filename);
    await storage.append('run-1', 0, [newEvent('a')]);
    const db = rawConnection(filename);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const migrations = db.prepare('SELECT version, applied_at FROM roundtable_migrations ORDER BY version').all() as { version: number; applied_at: string }[];
    expect(migrations.map((row) => row.version)).toEqual([SQLITE_SCHEMA_VERSION]);
    expect(SQLITE_SCHEMA_VERSION).toBe(1);
    expect(new Date(migrations[0]!.applied_at).toISOString()).toBe(migrations[0]!.applied_at);
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['events', 'roundtable_migrations', 'streams']);
  });

  it('migrates only once: reopening an existing file adds no migration rows', async () => {
    const filename = join(directory, 'runs.db');
    for (let i = 0; i < 3; i++) {
      const storage = createSqliteStorage({ filename });
      await storage.append('run-1', i, [newEvent(`e${i}`)]);
      await storage.close();
    }
    expect(rawConnection(filename).prepare('SELECT COUNT(*) FROM roundtable_migrations').pluck().get()).toBe(1);
  });

  it('refuses a database whose schema is newer than this code, with a typed error and without touching it', async () => {
    const filename = join(directory, 'runs.db');
    await createSqliteStorage({ filename }).close();
    const db = rawConnection(filename);
    db.prepare('INSERT INTO roundtable_migrations (version, applied_at) VALUES (?, ?)').run(SQLITE_SCHEMA_VERSION + 1, new Date().toISOString());
    let thrown: unknown;
    try {
      createSqliteStorage({ filename });
    } catch (error) {
      thrown = error;
    }
    expect(isStorageError(thrown, 'UNSUPPORTED_SCHEMA_VERSION')).toBe(true);
    expect((thrown as { details: unknown }).details).toMatchObject({ schemaVersion: SQLITE_SCHEMA_VERSION + 1, supportedSchemaVersion: SQLITE_SCHEMA_VERSION });
    expect(db.prepare('SELECT MAX(version) FROM roundtable_migrations').pluck().get()).toBe(SQLITE_SCHEMA_VERSION + 1);
  });

  it("works with synchronous: 'normal', and another instance sees what it wrote", async () => {
    const filename = join(directory, 'runs.db');
    const fast = storageAt(filename, { synchronous: 'normal' });
    expect(await fast.append('run-1', 0, newBatch('n', 5))).toBe(5);
    const full = storageAt(filename, { synchronous: 'full' });
    expect((await readAll(full, 'run-1')).map((event) => event.eventId)).toEqual(['n-1', 'n-2', 'n-3', 'n-4', 'n-5']);
    expect(await full.append('run-1', 5, [newEvent('f')])).toBe(6);
    expect(await fast.head('run-1')).toBe(6);
  });
});

describe('append', () => {
  it('is all-or-nothing: a failure after some rows are inserted leaves nothing behind', async () => {
    const filename = join(directory, 'runs.db');
    const storage = storageAt(filename);
    await storage.append('run-1', 0, [newEvent('first')]);
    // A trigger makes SQLite fail on the third row of the next batch, after two were inserted.
    rawConnection(filename).exec("CREATE TRIGGER fail_third AFTER INSERT ON events WHEN NEW.revision = 4 BEGIN SELECT RAISE(ABORT, 'injected'); END");
    const error = await rejection(storage.append('run-1', 1, newBatch('b', 5)));
    expect(isStorageError(error)).toBe(true);
    expect(await storage.head('run-1')).toBe(1);
    expect((await readAll(storage, 'run-1')).map((event) => event.eventId)).toEqual(['first']);
    expect(rawConnection(filename).prepare('SELECT COUNT(*) FROM events').pluck().get()).toBe(1);
  });

  it('refuses an event id already in the stream and writes nothing; other streams may reuse it', async () => {
    const storage = storageAt(join(directory, 'runs.db'));
    await storage.append('run-1', 0, newBatch('e', 3));
    const error = await rejection(storage.append('run-1', 3, [newEvent('fresh'), newEvent('e-2')]));
    expect(isStorageError(error, 'DUPLICATE_EVENT_ID')).toBe(true);
    expect(await storage.head('run-1')).toBe(3);
    expect(await storage.append('run-2', 0, [newEvent('e-2')])).toBe(1);
  });

  it('returns the committed head for a byte-identical retry and a conflict otherwise', async () => {
    const storage = storageAt(join(directory, 'runs.db'));
    await storage.append('run-1', 0, newBatch('e', 2));
    await storage.append('run-1', 2, newBatch('f', 2));
    expect(await storage.append('run-1', 0, newBatch('e', 2))).toBe(2);
    const error = await rejection(storage.append('run-1', 0, newBatch('x', 2)));
    expect(isStorageError(error, 'REVISION_CONFLICT')).toBe(true);
    expect((error as { details: unknown }).details).toEqual({ expectedRevision: 0, actualRevision: 4 });
    expect(await storage.head('run-1')).toBe(4);
  });

  it('lets exactly one of two instances in one process win a race on one revision', async () => {
    const filename = join(directory, 'runs.db');
    const [a, b] = [storageAt(filename), storageAt(filename)];
    for (let round = 0; round < 50; round++) {
      const results = await Promise.allSettled([a.append('run-1', round, [newEvent(`a${round}`)]), b.append('run-1', round, [newEvent(`b${round}`)])]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((result) => result.status === 'rejected')!;
      expect(isStorageError(lost.reason, 'REVISION_CONFLICT')).toBe(true);
    }
    expect(await a.head('run-1')).toBe(50);
  });

  it('reports a lock held past busyTimeoutMs as STORAGE_BUSY and writes nothing', async () => {
    const filename = join(directory, 'runs.db');
    const storage = storageAt(filename, { busyTimeoutMs: 50 });
    const holder = rawConnection(filename);
    holder.exec('BEGIN IMMEDIATE');
    const error = await rejection(storage.append('run-1', 0, [newEvent('a')]));
    holder.exec('ROLLBACK');
    expect(isStorageError(error, 'STORAGE_BUSY')).toBe(true);
    expect((error as { details: unknown }).details).toMatchObject({ busyTimeoutMs: 50 });
    expect(await storage.head('run-1')).toBe(0);
    expect(await storage.append('run-1', 0, [newEvent('a')])).toBe(1);
  });
});

describe('read, head and streams', () => {
  it('reads long streams page by page, in order, from any point', async () => {
    const storage = storageAt(join(directory, 'runs.db'));
    let head = 0;
    for (let batch = 0; batch < 25; batch++) head = await storage.append('long', head, newBatch(`b${batch}`, 40));
    expect(head).toBe(1000);
    const all = await readAll(storage, 'long');
    expect(all.map((event) => event.revision)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(all[999]!.eventId).toBe('b24-40');
    expect((await readAll(storage, 'long', 700)).map((event) => event.revision)).toEqual(Array.from({ length: 300 }, (_, i) => i + 701));
    expect(await readAll(storage, 'long', 1000)).toEqual([]);
    expect(await readAll(storage, 'long', 5000)).toEqual([]);
    const error = await rejection(readAll(storage, 'long', -1));
    expect(isStorageError(error, 'INVALID_STORED_VALUE')).toBe(true);
  });

  it('reads up to the head at the moment iteration starts, even while another instance appends', async () => {
    const filename = join(directory, 'runs.db');
    const reader = storageAt(filename);
    const writer = storageAt(filename);
    await writer.append('run-1', 0, newBatch('a', 600));
    const seen: number[] = [];
    for await (const event of reader.read('run-1')) {
      seen.push(event.revision);
      if (event.revision === 1) await writer.append('run-1', 600, newBatch('late', 10));
    }
    expect(seen).toHaveLength(600);
    expect(await reader.head('run-1')).toBe(610);
  });

  it('keeps namespaces in one file apart', async () => {
    const filename = join(directory, 'runs.db');
    const a = storageAt(filename, { namespace: 'team-a' });
    const b = storageAt(filename, { namespace: 'team-b' });
    await a.append('run-1', 0, newBatch('a', 2));
    expect(await b.head('run-1')).toBe(0);
    expect(await readAll(b, 'run-1')).toEqual([]);
    expect(await b.append('run-1', 0, newBatch('a', 1))).toBe(1);
    const listed: string[] = [];
    for await (const entry of b.streams()) listed.push(`${entry.streamId}@${entry.head}`);
    expect(listed).toEqual(['run-1@1']);
    expect(await a.head('run-1')).toBe(2);
  });

  it('lists every stream with its head, past one page of results', async () => {
    const storage = storageAt(join(directory, 'runs.db'));
    const expected: string[] = [];
    for (let i = 0; i < 300; i++) {
      const streamId = `run-${String(i).padStart(3, '0')}`;
      await storage.append(streamId, 0, newBatch(streamId, 1 + (i % 3)));
      expected.push(`${streamId}@${1 + (i % 3)}`);
    }
    const listed: string[] = [];
    for await (const entry of storage.streams()) listed.push(`${entry.streamId}@${entry.head}`);
    expect(listed).toEqual(expected);
  });

  it('checks stream ids on head and read', async () => {
    const storage = storageAt(join(directory, 'runs.db'));
    expect(isStorageError(await rejection(storage.head('../x')), 'INVALID_STORED_VALUE')).toBe(true);
    expect(isStorageError(await rejection(readAll(storage, '')), 'INVALID_STORED_VALUE')).toBe(true);
  });
});

describe('close', () => {
  it('rejects every later call with STORAGE_CLOSED and may be called twice', async () => {
    const storage = createSqliteStorage({ filename: join(directory, 'runs.db') });
    await storage.append('run-1', 0, [newEvent('a')]);
    await storage.close();
    await storage.close();
    const calls = [storage.head('run-1'), storage.append('run-1', 1, [newEvent('b')]), readAll(storage, 'run-1'), (async () => {
      for await (const entry of storage.streams()) return entry;
    })()];
    for (const call of calls) expect(isStorageError(await rejection(call), 'STORAGE_CLOSED')).toBe(true);
  });

  it('stops a read in progress with STORAGE_CLOSED at the next page', async () => {
    const storage = createSqliteStorage({ filename: join(directory, 'runs.db') });
    await storage.append('run-1', 0, newBatch('a', 600));
    let count = 0;
    const error = await rejection(
      (async () => {
        for await (const _ of storage.read('run-1')) {
          if (++count === 10) await storage.close();
        }
      })(),
    );
    expect(isStorageError(error, 'STORAGE_CLOSED')).toBe(true);
    expect(count).toBeLessThan(600);
  });
});
