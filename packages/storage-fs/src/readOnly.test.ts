import { cpSync, mkdirSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isStorageError } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import { probeReadOnly, snapshotTree, thrown } from '@roundtable/test-utils';
import { createFsStorage } from './index.js';
import { collect, newEvents, removeTempDirectories, storageError, tempDirectory } from './__fixtures__/support.js';

afterAll(removeTempDirectories);

/** A store with two streams in namespace `default` and one in `team-a`, written and closed. */
async function writtenStore(): Promise<string> {
  const directory = join(tempDirectory(), 'store');
  const writer = createFsStorage({ directory });
  await writer.append('run-1', 0, newEvents('a', 2));
  await writer.append('run-2', 0, newEvents('b', 1));
  await writer.close();
  const other = createFsStorage({ directory, namespace: 'team-a' });
  await other.append('run-a', 0, newEvents('c', 1));
  await other.close();
  return directory;
}

/** Opening `directory` read-only is NOT_A_STORE (or `code`), and leaves everything under `root` as it was. */
function expectRefusedUnchanged(root: string, directory: string, code: 'NOT_A_STORE' | 'UNSAFE_STORAGE_PATH' = 'NOT_A_STORE'): string {
  const before = snapshotTree(root);
  const error = thrown(() => createFsStorage({ directory, readOnly: true }));
  expect(isStorageError(error, code), `${directory}: ${String(error)}`).toBe(true);
  expect(snapshotTree(root)).toEqual(before);
  return (error as Error).message;
}

describe('createFsStorage({ readOnly: true }) over a location that is not a store', () => {
  it('is NOT_A_STORE naming what is there, and creates or changes nothing', async () => {
    const root = tempDirectory();
    expect(expectRefusedUnchanged(root, join(root, 'missing', 'deeper'))).toContain('there is no directory there');

    const empty = join(root, 'empty');
    mkdirSync(empty);
    expect(expectRefusedUnchanged(root, empty)).toMatch(/is not a Roundtable store: it is an empty directory\. Pass the directory/);

    const foreign = join(root, 'project');
    mkdirSync(join(foreign, 'src'), { recursive: true });
    mkdirSync(join(foreign, 'default'));
    writeFileSync(join(foreign, 'README.md'), '# mine\n');
    writeFileSync(join(foreign, 'default', 'notes.txt'), 'not a stream\n');
    const message = expectRefusedUnchanged(root, foreign);
    expect(message).toContain('it holds 3 entries ("README.md", "default/", "src/"), none of them a namespace folder');
    expect(message).toContain('nothing was created or changed');

    const store = await writtenStore();
    const namespaceFolder = join(store, 'default');
    expect(expectRefusedUnchanged(root, namespaceFolder)).toContain(`it is the folder of one namespace inside a store. Pass the store: directory ${realpathSync(store)} with namespace "default".`);
    expect(expectRefusedUnchanged(root, join(namespaceFolder, 'run-1'))).toContain(`it is the folder of one stream inside a store. Pass the store: directory ${realpathSync(store)} with namespace "default".`);

    writeFileSync(join(root, 'file'), 'x');
    expectRefusedUnchanged(root, join(root, 'file'), 'UNSAFE_STORAGE_PATH');
    symlinkSync(store, join(root, 'link'));
    expectRefusedUnchanged(root, join(root, 'link'), 'UNSAFE_STORAGE_PATH');
  });

  it('refuses a folder of namespace-shaped junk, and accepts a store copied without its .tmp folders', async () => {
    const root = tempDirectory();
    const junk = join(root, 'junk');
    mkdirSync(join(junk, 'default', 'run-1'), { recursive: true });
    writeFileSync(join(junk, 'default', 'run-1', 'notes'), 'x');
    expectRefusedUnchanged(root, junk);

    const copy = join(root, 'copy');
    cpSync(await writtenStore(), copy, { recursive: true });
    rmSync(join(copy, 'default', '.tmp'), { recursive: true });
    rmSync(join(copy, 'team-a', '.tmp'), { recursive: true });
    const before = snapshotTree(root);
    const reader = createFsStorage({ directory: copy, readOnly: true });
    expect(await reader.head('run-1')).toBe(2);
    await reader.close();
    expect(snapshotTree(root)).toEqual(before);
  });
});

describe('createFsStorage({ readOnly: true }) over a store', () => {
  it('reads every namespace, reads a missing one as empty without making its folder, refuses appends, and changes nothing', async () => {
    const store = await writtenStore();
    // A temp file a crashed writer left long ago: a writer's open removes it, a reader's does not.
    const stale = join(store, 'default', '.tmp', '00000000-1-0000000000000000.tmp');
    writeFileSync(stale, 'left behind');
    utimesSync(stale, new Date(0), new Date(0));
    const before = snapshotTree(store);

    const reader = createFsStorage({ directory: store, readOnly: true });
    expect(reader.identity.location).toBe(realpathSync(store));
    expect(await collect(reader.streams())).toEqual([{ streamId: 'run-1', head: 2 }, { streamId: 'run-2', head: 1 }]);
    expect((await collect(reader.read('run-1'))).map((event) => event.eventId)).toEqual(['a-0', 'a-1']);
    expect(await reader.head('no-such-run')).toBe(0);
    const teamA = createFsStorage({ directory: store, namespace: 'team-a', readOnly: true });
    expect(await collect(teamA.streams())).toEqual([{ streamId: 'run-a', head: 1 }]);

    const readers: RunStorage[] = [reader, teamA];
    for (const namespace of ['Default', 'nobody']) {
      const missing = createFsStorage({ directory: store, namespace, readOnly: true });
      readers.push(missing);
      expect(await missing.head('run-1')).toBe(0);
      expect(await collect(missing.read('run-1'))).toEqual([]);
      expect(await collect(missing.streams())).toEqual([]);
      await storageError(() => missing.append('run-1', 0, newEvents('x', 1)), 'STORAGE_READ_ONLY');
    }
    await storageError(() => reader.append('run-1', 2, newEvents('x', 1)), 'STORAGE_READ_ONLY');
    await storageError(() => reader.append('run-3', 0, newEvents('x', 1)), 'STORAGE_READ_ONLY');
    // The refusal comes first, before the batch is even looked at.
    await storageError(() => reader.append('run-1', 2, []), 'STORAGE_READ_ONLY');
    await Promise.all(readers.map((storage) => storage.close()));
    expect(snapshotTree(store)).toEqual(before);
  });

  it('sees what a writer appends after it opened, in a namespace that did not exist yet too', async () => {
    const store = await writtenStore();
    const reader = createFsStorage({ directory: store, namespace: 'later', readOnly: true });
    expect(await reader.head('run-1')).toBe(0);
    const writer = createFsStorage({ directory: store, namespace: 'later' });
    await writer.append('run-1', 0, newEvents('late', 3));
    expect(await reader.head('run-1')).toBe(3);
    expect(await collect(reader.streams())).toEqual([{ streamId: 'run-1', head: 3 }]);
    await Promise.all([reader.close(), writer.close()]);
  });
});

/** One entry of a random directory tree: a path of names from a small alphabet, a folder or a file with some bytes. */
const treeEntry = fc.record({
  path: fc.array(fc.constantFrom('default', 'Default~1', 'team-a', 'run-1', '.tmp', 'x', 'notes.txt', 'head', '0000000000000001.batch', '0000000000000001.segment'), { minLength: 1, maxLength: 4 }),
  folder: fc.boolean(),
  bytes: fc.uint8Array({ maxLength: 64 }),
});

/** Builds what it can of `entries` under `directory` (an entry whose place is taken by a file is skipped). */
function buildTree(directory: string, entries: readonly { path: string[]; folder: boolean; bytes: Uint8Array }[]): void {
  mkdirSync(directory, { recursive: true });
  for (const { path, folder, bytes } of entries) {
    const target = join(directory, ...path);
    try {
      mkdirSync(join(directory, ...path.slice(0, -1)), { recursive: true });
      if (folder) mkdirSync(target, { recursive: true });
      else writeFileSync(target, bytes, { flag: 'wx' });
    } catch {
      // A file where a folder belongs, or the name already taken: this tree simply lacks the entry.
    }
  }
}

describe('createFsStorage({ readOnly: true }) over random directory trees', () => {
  it('opens or refuses with a typed error, every call ends typed or clean, and the tree never changes', async () => {
    const root = tempDirectory();
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(treeEntry, { maxLength: 12 }), fc.constantFrom('default', 'Default', 'team-a', 'run-1'), async (entries, namespace) => {
        const directory = join(root, `tree-${round++}`);
        buildTree(directory, entries);
        const before = snapshotTree(directory);
        const probe = await probeReadOnly(() => createFsStorage({ directory, namespace, readOnly: true }));
        for (const error of probe.errors) expect(isStorageError(error), String(error)).toBe(true);
        if (probe.opened) expect(isStorageError(probe.appendError, 'STORAGE_READ_ONLY'), String(probe.appendError)).toBe(true);
        expect(snapshotTree(directory)).toEqual(before);
      }),
      { numRuns: 150, seed: 22 },
    );
  });
});
