import { existsSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStorage } from './index.js';
import { COMMITS_PER_CHECKPOINT } from './walCheckpointer.js';
import { newEvent, readAll, tempDirectory } from '../test/__fixtures__/helpers.js';

let directory: string;
let cleanup: () => void;

beforeEach(() => {
  ({ directory, cleanup } = tempDirectory());
});

afterEach(() => cleanup());

/** SQLite's default autocheckpoint threshold and the size of one WAL frame (4 KiB page + 24-byte header). */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
const WAL_FRAME_BYTES = 4096 + 24;

/** Waits (up to 20 s, polling) until `condition` holds; true if it did. */
async function eventually(condition: () => boolean): Promise<boolean> {
  for (let waited = 0; waited < 20_000; waited += 20) {
    if (condition()) return true;
    await sleep(20);
  }
  return condition();
}

describe("background WAL checkpoints (synchronous: 'normal')", () => {
  it('copy the WAL into the database file while the writer goes on', async () => {
    const synchronous = 'normal';
    const filename = join(directory, 'runs.db');
    const storage = createSqliteStorage({ filename, synchronous });
    // Switching a new file to WAL writes its first page; everything after goes to the WAL.
    const before = statSync(filename).size;
    // One more commit than it takes to ask for a checkpoint, and far fewer WAL pages than SQLite's default threshold.
    const commits = COMMITS_PER_CHECKPOINT + 10;
    for (let revision = 0; revision < commits; revision++) await storage.append('run-1', revision, [newEvent(`e-${revision + 1}`)]);
    // Only a checkpoint writes the database file in WAL mode, and the writer's own would wait for
    // SQLite's default of 1000 WAL pages, which these few commits do not reach: the worker copied them.
    expect(statSync(`${filename}-wal`).size).toBeLessThan(DEFAULT_AUTOCHECKPOINT_PAGES * WAL_FRAME_BYTES);
    expect(await eventually(() => statSync(filename).size > before)).toBe(true);
    const ids = (await readAll(storage, 'run-1')).map((event) => event.eventId);
    expect(ids).toEqual(Array.from({ length: commits }, (_, index) => `e-${index + 1}`));
    await storage.close();
    const reopened = createSqliteStorage({ filename, synchronous });
    expect(await reopened.head('run-1')).toBe(commits);
    expect((await readAll(reopened, 'run-1')).map((event) => event.eventId)).toEqual(ids);
    await reopened.close();
  });

  it('are asked for after a few large batches too, long before a hundred commits', async () => {
    const filename = join(directory, 'runs.db');
    const storage = createSqliteStorage({ filename, synchronous: 'normal' });
    const before = statSync(filename).size;
    // Three batches of four 200 kB events: 2.4 MB of text, under SQLite's default of 1000 WAL pages.
    for (let batch = 0; batch < 3; batch++) {
      const events = Array.from({ length: 4 }, (_, index) => newEvent(`b${batch}-${index}`, { text: 'x'.repeat(200_000) }));
      await storage.append('run-1', batch * 4, events);
    }
    expect(statSync(`${filename}-wal`).size).toBeLessThan(DEFAULT_AUTOCHECKPOINT_PAGES * WAL_FRAME_BYTES);
    expect(await eventually(() => statSync(filename).size > before)).toBe(true);
    expect(await storage.head('run-1')).toBe(12);
    await storage.close();
  });

  it('that cannot run leave appends unharmed: the writer checkpoints alone', async () => {
    const filename = join(directory, 'runs.db');
    const storage = createSqliteStorage({ filename, synchronous: 'normal' });
    await storage.append('run-1', 0, [newEvent('e-1')]);
    // The open connection keeps using the file under its new name; the worker, opening the old name, fails.
    renameSync(filename, join(directory, 'moved.db'));
    const commits = COMMITS_PER_CHECKPOINT * 3;
    for (let revision = 1; revision < commits; revision++) await storage.append('run-1', revision, [newEvent(`e-${revision + 1}`)]);
    expect(await storage.head('run-1')).toBe(commits);
    expect(await readAll(storage, 'run-1')).toHaveLength(commits);
    await storage.close();
  });

  it('end with close: every close waits for the worker, and the last connection removes the WAL as before', async () => {
    const filename = join(directory, 'runs.db');
    const storage = createSqliteStorage({ filename, synchronous: 'normal' });
    for (let revision = 0; revision < COMMITS_PER_CHECKPOINT + 10; revision++) await storage.append('run-1', revision, [newEvent(`e-${revision + 1}`)]);
    await Promise.all([storage.close(), storage.close()]);
    // SQLite removes the WAL only when the last connection to the file closes: the worker's was closed first.
    expect(existsSync(`${filename}-wal`)).toBe(false);
    await storage.close();
  });
});
