import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { followStream, isStorageError } from '@roundtable/storage';
import type { RunStorage, StorageErrorCode } from '@roundtable/storage';
import { probeReadOnly, snapshotTree, thrown } from '@roundtable/test-utils';
import { SQLITE_SCHEMA_VERSION, createSqliteStorage } from './index.js';
import { newBatch, readAll, rejection, tempDirectory } from '../test/__fixtures__/helpers.js';

const scratch = tempDirectory();
afterAll(() => scratch.cleanup());
let folders = 0;

/** A fresh folder of this file's own. */
function folder(): string {
  const path = join(scratch.directory, `case-${++folders}`);
  mkdirSync(path);
  return path;
}

/** A SQLite database that is not a store: these tables (each with a row), in this journal mode, closed. */
function foreignDatabase(filename: string, tables: readonly string[], journalMode: 'delete' | 'wal' = 'delete'): void {
  const db = new Database(filename);
  db.pragma(`journal_mode = ${journalMode}`);
  // Written into the header: a database with no tables is still a file of one page, not an empty one.
  db.pragma('user_version = 7');
  for (const table of tables) {
    db.exec(`CREATE TABLE "${table}" (id INTEGER PRIMARY KEY, name TEXT)`);
    db.prepare(`INSERT INTO "${table}" (name) VALUES (?)`).run(`a row of ${table}`);
  }
  db.close();
}

/** A store with two streams in namespace `default` and one in `team-a`, written and closed. */
async function writtenStore(filename: string): Promise<void> {
  const writer = createSqliteStorage({ filename });
  await writer.append('run-1', 0, newBatch('a', 2));
  await writer.append('run-2', 0, newBatch('b', 1));
  await writer.close();
  const other = createSqliteStorage({ filename, namespace: 'team-a' });
  await other.append('run-a', 0, newBatch('c', 1));
  await other.close();
}

async function listStreams(storage: RunStorage): Promise<unknown[]> {
  const listed: unknown[] = [];
  for await (const entry of storage.streams()) listed.push(entry);
  return listed;
}

/** Opening `filename` read-only fails with `code`, and leaves everything under `root` as it was; returns the message. */
function expectRefusedUnchanged(root: string, filename: string, code: StorageErrorCode = 'NOT_A_STORE'): string {
  const before = snapshotTree(root);
  const error = thrown(() => createSqliteStorage({ filename, readOnly: true }));
  expect(isStorageError(error, code), `${filename}: ${String(error)}`).toBe(true);
  expect(snapshotTree(root)).toEqual(before);
  return (error as Error).message;
}

describe('createSqliteStorage({ readOnly: true }) over a file that is not a store', () => {
  it('is NOT_A_STORE naming what is there, and creates or changes nothing', () => {
    const root = folder();
    expect(expectRefusedUnchanged(root, join(root, 'missing', 'runs.db'))).toContain('there is no file there');
    writeFileSync(join(root, 'empty.db'), '');
    expect(expectRefusedUnchanged(root, join(root, 'empty.db'))).toContain('it is an empty file');
    writeFileSync(join(root, 'notes.db'), 'just some text\n');
    expect(expectRefusedUnchanged(root, join(root, 'notes.db'))).toContain('it is a file of 15 bytes that is not a SQLite database');
    foreignDatabase(join(root, 'app.db'), ['users', 'orders']);
    const message = expectRefusedUnchanged(root, join(root, 'app.db'));
    expect(message).toContain('is not a Roundtable store: it is a SQLite database whose 2 tables are "orders", "users", without roundtable_migrations.');
    expect(message).toContain('Pass the database file a Roundtable program gave createSqliteStorage');
    // An application's database in WAL mode: no -wal or -shm file is left beside it.
    foreignDatabase(join(root, 'app.sqlite3'), ['settings'], 'wal');
    expect(expectRefusedUnchanged(root, join(root, 'app.sqlite3'))).toContain('whose table is "settings"');
    foreignDatabase(join(root, 'bare.db'), []);
    expect(expectRefusedUnchanged(root, join(root, 'bare.db'))).toContain('it is a SQLite database with no tables');
    expectRefusedUnchanged(root, root, 'UNSAFE_STORAGE_PATH');
  });

  it('refuses a store whose schema is older or newer than this code without migrating it', async () => {
    const root = folder();
    const older = join(root, 'older.db');
    foreignDatabase(older, []);
    const db = new Database(older);
    db.exec('CREATE TABLE roundtable_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT');
    db.close();
    expect(expectRefusedUnchanged(root, older, 'UNSUPPORTED_SCHEMA_VERSION')).toMatch(/schema version 0, older than .* a read-only open never migrates: open it once without readOnly/);

    const newer = join(root, 'newer.db');
    await writtenStore(newer);
    const raw = new Database(newer);
    raw.prepare('INSERT INTO roundtable_migrations (version, applied_at) VALUES (?, ?)').run(SQLITE_SCHEMA_VERSION + 1, new Date().toISOString());
    raw.close();
    expect(expectRefusedUnchanged(root, newer, 'UNSUPPORTED_SCHEMA_VERSION')).toContain(`schema version ${SQLITE_SCHEMA_VERSION + 1}, newer than`);
  });
});

describe('createSqliteStorage({ readOnly: true }) over a store', () => {
  it('reads every namespace, reads a missing one as empty, refuses appends, and leaves the folder as it was', async () => {
    const root = folder();
    const filename = join(root, 'runs.db');
    await writtenStore(filename);
    const before = snapshotTree(root);
    const reader = createSqliteStorage({ filename, readOnly: true });
    const teamA = createSqliteStorage({ filename, namespace: 'team-a', readOnly: true });
    const nobody = createSqliteStorage({ filename, namespace: 'Default', readOnly: true });
    const readers: RunStorage[] = [reader, teamA, nobody];
    expect((await readAll(reader, 'run-1')).map((event) => event.eventId)).toEqual(['a-1', 'a-2']);
    expect(await listStreams(reader)).toEqual([{ streamId: 'run-1', head: 2 }, { streamId: 'run-2', head: 1 }]);
    expect(await teamA.head('run-a')).toBe(1);
    expect(await nobody.head('run-1')).toBe(0);
    for (const storage of readers) {
      expect(isStorageError(await rejection(storage.append('run-1', 0, newBatch('x', 1))), 'STORAGE_READ_ONLY')).toBe(true);
    }
    expect(isStorageError(await rejection(reader.append('run-1', 2, newBatch('x', 1))), 'STORAGE_READ_ONLY')).toBe(true);
    await Promise.all(readers.map((storage) => storage.close()));
    expect(snapshotTree(root)).toEqual(before);
  });

  it('follows what a writer in this process appends while it reads, and leaves the writer\'s files to it', async () => {
    const root = folder();
    const filename = join(root, 'runs.db');
    await writtenStore(filename);
    const writer = createSqliteStorage({ filename });
    await writer.append('run-1', 2, newBatch('w', 1));
    const reader = createSqliteStorage({ filename, readOnly: true });
    const controller = new AbortController();
    const seen: number[] = [];
    const follow = (async () => {
      for await (const event of followStream(reader, 'run-1', { signal: controller.signal })) {
        seen.push(event.revision);
        if (seen.length === 5) controller.abort();
      }
    })();
    await writer.append('run-1', 3, newBatch('v', 2));
    await follow;
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    await reader.close();
    await writer.close();
    const after = createSqliteStorage({ filename, readOnly: true });
    expect(await after.head('run-1')).toBe(5);
    await after.close();
  });
});

/** One random database: some tables (a real migrations table at some version, Roundtable's tables with their real shape, or foreign ones), a journal mode. */
const randomDatabase = fc.record({
  tables: fc.uniqueArray(fc.constantFrom('roundtable_migrations', 'streams', 'events', 'users', 'Event log', 'x y', 'notes'), { maxLength: 5 }),
  version: fc.integer({ min: 0, max: SQLITE_SCHEMA_VERSION + 1 }),
  realShapes: fc.boolean(),
  journalMode: fc.constantFrom('delete' as const, 'wal' as const),
});

function buildDatabase(filename: string, { tables, version, realShapes, journalMode }: { tables: string[]; version: number; realShapes: boolean; journalMode: 'delete' | 'wal' }): void {
  const db = new Database(filename);
  db.pragma(`journal_mode = ${journalMode}`);
  for (const table of tables) {
    if (table === 'roundtable_migrations') {
      db.exec('CREATE TABLE roundtable_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
      if (version > 0) db.prepare('INSERT INTO roundtable_migrations VALUES (?, ?)').run(version, 'then');
    } else if (realShapes && table === 'streams') db.exec('CREATE TABLE streams (namespace TEXT, stream_id TEXT, head INTEGER, PRIMARY KEY (namespace, stream_id))');
    else if (realShapes && table === 'events') db.exec('CREATE TABLE events (namespace TEXT, stream_id TEXT, revision INTEGER, event_id TEXT, body TEXT, checksum TEXT)');
    else db.exec(`CREATE TABLE "${table}" (a TEXT, b INTEGER)`);
  }
  db.close();
}

describe('createSqliteStorage({ readOnly: true }) over random databases', () => {
  it('opens or refuses with a typed error, every call ends typed or clean, and the folder never changes', async () => {
    await fc.assert(
      fc.asyncProperty(randomDatabase, fc.constantFrom('default', 'team-a'), async (database, namespace) => {
        const root = folder();
        const filename = join(root, 'some.db');
        buildDatabase(filename, database);
        const before = snapshotTree(root);
        const probe = await probeReadOnly(() => createSqliteStorage({ filename, namespace, readOnly: true }));
        for (const error of probe.errors) expect(isStorageError(error), String(error)).toBe(true);
        if (probe.opened) expect(isStorageError(probe.appendError, 'STORAGE_READ_ONLY'), String(probe.appendError)).toBe(true);
        expect(snapshotTree(root)).toEqual(before);
      }),
      { numRuns: 60, seed: 22 },
    );
  });
});
