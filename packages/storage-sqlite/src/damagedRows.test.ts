import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageError } from '@roundtable/storage';
import type { StorageErrorCode } from '@roundtable/storage';
import { createSqliteStorage } from './index.js';
import { newBatch, readAll, rejection, sha256, tempDirectory } from '../test/__fixtures__/helpers.js';

let directory: string;
let cleanup: () => void;
let filename: string;

beforeEach(async () => {
  ({ directory, cleanup } = tempDirectory());
  filename = join(directory, 'runs.db');
  const storage = createSqliteStorage({ filename });
  await storage.append('run-1', 0, newBatch('e', 5));
  await storage.append('run-2', 0, newBatch('e', 2));
  await storage.close();
});

afterEach(() => cleanup());

/** Edits the file with a plain SQLite connection, as damage (or a careless tool) would. */
function damage(edit: (db: Database.Database) => void): void {
  const db = new Database(filename);
  try {
    edit(db);
  } finally {
    db.close();
  }
}

function bodyAt(db: Database.Database, revision: number): string {
  return db.prepare("SELECT body FROM events WHERE stream_id = 'run-1' AND revision = ?").pluck().get(revision) as string;
}

/** Rewrites a row's body and its checksum, so only the content checks can catch it. */
function rewrite(db: Database.Database, revision: number, change: (event: Record<string, unknown>) => unknown): void {
  const body = JSON.stringify(change(JSON.parse(bodyAt(db, revision)) as Record<string, unknown>));
  db.prepare("UPDATE events SET body = ?, checksum = ? WHERE stream_id = 'run-1' AND revision = ?").run(body, sha256(body), revision);
}

/** What reading run-1 (whole, and via head) fails with; the other stream must still read. */
async function readFailure(): Promise<unknown> {
  const storage = createSqliteStorage({ filename });
  try {
    const error = await rejection(readAll(storage, 'run-1'));
    expect(await readAll(storage, 'run-2')).toHaveLength(2);
    return error;
  } finally {
    await storage.close();
  }
}

async function expectReadFails(code: StorageErrorCode): Promise<void> {
  const error = await readFailure();
  expect(error).not.toBeInstanceOf(TypeError);
  expect(isStorageError(error, code), String(error)).toBe(true);
}

describe('reading damaged data fails closed', () => {
  const corrupt: [string, (db: Database.Database) => void][] = [
    ['an edited body', (db) => db.prepare("UPDATE events SET body = replace(body, 'e-3', 'e-X') WHERE stream_id = 'run-1' AND revision = 3").run()],
    ['an edited checksum', (db) => db.prepare("UPDATE events SET checksum = ? WHERE stream_id = 'run-1' AND revision = 3").run(sha256('something else'))],
    ['a deleted row in the middle (a gap)', (db) => db.prepare("DELETE FROM events WHERE stream_id = 'run-1' AND revision = 3").run()],
    ['a deleted last row', (db) => db.prepare("DELETE FROM events WHERE stream_id = 'run-1' AND revision = 5").run()],
    ['a head lowered below the stored rows', (db) => db.prepare("UPDATE streams SET head = 3 WHERE stream_id = 'run-1'").run()],
    ['a missing head row', (db) => db.prepare("DELETE FROM streams WHERE stream_id = 'run-1'").run()],
    ['a body that is not JSON', (db) => db.prepare("UPDATE events SET body = '{not json', checksum = ? WHERE stream_id = 'run-1' AND revision = 2").run(sha256('{not json'))],
    ['a body that is JSON null', (db) => db.prepare("UPDATE events SET body = 'null', checksum = ? WHERE stream_id = 'run-1' AND revision = 2").run(sha256('null'))],
    ['a body that is an array', (db) => db.prepare("UPDATE events SET body = '[1]', checksum = ? WHERE stream_id = 'run-1' AND revision = 2").run(sha256('[1]'))],
    ['a body missing a field', (db) => rewrite(db, 2, ({ payload: _, ...rest }) => rest)],
    ['a body with an extra field', (db) => rewrite(db, 2, (event) => ({ ...event, extra: true }))],
    ['a body with a bad timestamp', (db) => rewrite(db, 2, (event) => ({ ...event, timestamp: 'yesterday' }))],
    ['a body claiming another revision', (db) => rewrite(db, 2, (event) => ({ ...event, revision: 3 }))],
    ['a body claiming another stream', (db) => rewrite(db, 2, (event) => ({ ...event, streamId: 'run-2' }))],
    ['a body whose event id differs from its index entry', (db) => rewrite(db, 2, (event) => ({ ...event, eventId: 'e-other' }))],
    ['a row moved to another revision', (db) => db.prepare("UPDATE events SET revision = 9 WHERE stream_id = 'run-1' AND revision = 2").run()],
  ];

  it.each(corrupt)('%s → CORRUPT_EVENT_STREAM', async (_, edit) => {
    damage(edit);
    await expectReadFails('CORRUPT_EVENT_STREAM');
  });

  it('a row with envelopeVersion 2 → UNSUPPORTED_ENVELOPE_VERSION', async () => {
    damage((db) => rewrite(db, 4, (event) => ({ ...event, envelopeVersion: 2 })));
    await expectReadFails('UNSUPPORTED_ENVELOPE_VERSION');
  });

  it('yields the good events before the damage, then fails; reading from after the damage works', async () => {
    damage((db) => db.prepare("DELETE FROM events WHERE stream_id = 'run-1' AND revision = 3").run());
    const storage = createSqliteStorage({ filename });
    const seen: number[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of storage.read('run-1')) seen.push(event.revision);
      })(),
    );
    expect(seen).toEqual([1, 2]);
    expect(isStorageError(error, 'CORRUPT_EVENT_STREAM')).toBe(true);
    expect((await readAll(storage, 'run-1', 3)).map((event) => event.revision)).toEqual([4, 5]);
    await storage.close();
  });

  it('head and append fail closed when the head disagrees with the rows', async () => {
    damage((db) => db.prepare("UPDATE streams SET head = 4 WHERE stream_id = 'run-1'").run());
    const storage = createSqliteStorage({ filename });
    expect(isStorageError(await rejection(storage.head('run-1')), 'CORRUPT_EVENT_STREAM')).toBe(true);
    expect(isStorageError(await rejection(storage.append('run-1', 4, newBatch('n', 1))), 'CORRUPT_EVENT_STREAM')).toBe(true);
    await storage.close();
    damage((db) => expect(db.prepare("SELECT COUNT(*) FROM events WHERE stream_id = 'run-1'").pluck().get()).toBe(5));
  });

  it('any single changed character in any stored body is caught', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.nat(), fc.integer({ min: 1, max: 0xffff }), async (revision, at, code) => {
        let changed = false;
        damage((db) => {
          const body = bodyAt(db, revision);
          const index = at % body.length;
          const replacement = String.fromCharCode(code);
          if (replacement === body[index]) return;
          changed = true;
          db.prepare("UPDATE events SET body = ? WHERE stream_id = 'run-1' AND revision = ?").run(body.slice(0, index) + replacement + body.slice(index + 1), revision);
        });
        const error = changed ? await readFailure() : undefined;
        damage((db) => {
          db.prepare("DELETE FROM events WHERE stream_id = 'run-1'").run();
          db.prepare("DELETE FROM streams WHERE stream_id = 'run-1'").run();
        });
        const storage = createSqliteStorage({ filename });
        await storage.append('run-1', 0, newBatch('e', 5));
        await storage.close();
        if (changed) expect(isStorageError(error, 'CORRUPT_EVENT_STREAM'), String(error)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
