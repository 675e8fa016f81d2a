import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStorageError } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import { createFsStorage } from './index.js';
import { collect, newEvents, removeTempDirectories, storageError, tempDirectory } from './__fixtures__/support.js';

afterAll(removeTempDirectories);

function createError(options: { directory: string; namespace?: string }): unknown {
  try {
    createFsStorage(options);
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Every call on `run` is refused with UNSAFE_STORAGE_PATH. */
async function expectAllUnsafe(storage: RunStorage, head: number): Promise<void> {
  await storageError(() => storage.head('run'), 'UNSAFE_STORAGE_PATH');
  await storageError(() => collect(storage.read('run')), 'UNSAFE_STORAGE_PATH');
  await storageError(() => storage.append('run', head, newEvents('late', 1)), 'UNSAFE_STORAGE_PATH');
  await storageError(() => collect(storage.streams()), 'UNSAFE_STORAGE_PATH');
}

describe('symlinked paths are refused with UNSAFE_STORAGE_PATH', () => {
  it('a storage directory that is a symlink, even to a real directory', () => {
    const base = tempDirectory();
    mkdirSync(join(base, 'real'));
    symlinkSync(join(base, 'real'), join(base, 'link'));
    expect(isStorageError(createError({ directory: join(base, 'link') }), 'UNSAFE_STORAGE_PATH')).toBe(true);
    symlinkSync(join(base, 'missing'), join(base, 'dangling'));
    expect(isStorageError(createError({ directory: join(base, 'dangling') }), 'UNSAFE_STORAGE_PATH')).toBe(true);
  });

  it('a storage directory that is a file', () => {
    const base = tempDirectory();
    writeFileSync(join(base, 'file'), 'x');
    expect(isStorageError(createError({ directory: join(base, 'file') }), 'UNSAFE_STORAGE_PATH')).toBe(true);
  });

  it('a symlink among the ancestors is allowed, and the identity shows the real path', () => {
    const base = tempDirectory();
    mkdirSync(join(base, 'real'));
    symlinkSync(join(base, 'real'), join(base, 'link'));
    const storage = createFsStorage({ directory: join(base, 'link', 'records') });
    expect(storage.identity.location).toBe(realpathSync(join(base, 'real', 'records')));
  });

  it('a namespace folder or temp folder that is a symlink', () => {
    const base = tempDirectory();
    mkdirSync(join(base, 'elsewhere'));
    symlinkSync(join(base, 'elsewhere'), join(base, 'team'));
    expect(isStorageError(createError({ directory: base, namespace: 'team' }), 'UNSAFE_STORAGE_PATH')).toBe(true);
    mkdirSync(join(base, 'other'));
    symlinkSync(join(base, 'elsewhere'), join(base, 'other', '.tmp'));
    expect(isStorageError(createError({ directory: base, namespace: 'other' }), 'UNSAFE_STORAGE_PATH')).toBe(true);
  });

  it('a stream folder replaced by a symlink, for an instance that knew it and for a fresh one', async () => {
    const base = tempDirectory();
    const storage = createFsStorage({ directory: base });
    await storage.append('run', 0, newEvents('a', 2));
    const folder = join(base, 'default', 'run');
    renameSync(folder, join(base, 'moved'));
    symlinkSync(join(base, 'moved'), folder);
    await expectAllUnsafe(storage, 2);
    await expectAllUnsafe(createFsStorage({ directory: base }), 2);
  });

  it('a stream folder that is a symlink before the stream is first written', async () => {
    const base = tempDirectory();
    const storage = createFsStorage({ directory: base });
    mkdirSync(join(base, 'target'));
    symlinkSync(join(base, 'target'), join(base, 'default', 'run'));
    await expectAllUnsafe(storage, 0);
  });

  it('a batch file replaced by a symlink', async () => {
    const base = tempDirectory();
    const storage = createFsStorage({ directory: base });
    await storage.append('run', 0, newEvents('a', 2));
    await storage.append('run', 2, newEvents('b', 1));
    const file = join(base, 'default', 'run', '0000000000000001.batch');
    renameSync(file, join(base, 'moved.batch'));
    symlinkSync(join(base, 'moved.batch'), file);
    await storageError(() => collect(storage.read('run')), 'UNSAFE_STORAGE_PATH');
    await storageError(() => createFsStorage({ directory: base }).head('run'), 'UNSAFE_STORAGE_PATH');
    // As the next batch a live instance would probe for.
    symlinkSync(join(base, 'moved.batch'), join(base, 'default', 'run', '0000000000000004.batch'));
    await storageError(() => storage.append('run', 3, newEvents('c', 1)), 'UNSAFE_STORAGE_PATH');
  });

  it('the storage directory swapped for a symlink to a copy while an instance is open', async () => {
    const base = tempDirectory();
    const directory = join(base, 'records');
    const storage = createFsStorage({ directory });
    await storage.append('run', 0, newEvents('a', 2));
    cpSync(directory, join(base, 'copy'), { recursive: true });
    renameSync(directory, join(base, 'original'));
    symlinkSync(join(base, 'copy'), directory);
    await expectAllUnsafe(storage, 2);
    expect(isStorageError(createError({ directory }), 'UNSAFE_STORAGE_PATH')).toBe(true);
    // Nothing was written through the link: the copy still holds only the first batch.
    expect(readdirSync(join(base, 'copy', 'default', 'run')).sort()).toEqual(['0000000000000001.batch', 'head']);
    expect(readdirSync(join(base, 'copy', 'default', '.tmp'))).toEqual([]);
  });

  it('the storage directory replaced by a regular file while an instance is open', async () => {
    const base = tempDirectory();
    const directory = join(base, 'records');
    const storage = createFsStorage({ directory });
    await storage.append('run', 0, newEvents('a', 1));
    renameSync(directory, join(base, 'moved'));
    writeFileSync(directory, 'not a directory');
    await expectAllUnsafe(storage, 1);
  });

  it('the namespace folder swapped for a symlink to a copy while an instance is open', async () => {
    const base = tempDirectory();
    const storage = createFsStorage({ directory: base, namespace: 'team' });
    await storage.append('run', 0, newEvents('a', 1));
    cpSync(join(base, 'team'), join(base, 'copy'), { recursive: true });
    rmSync(join(base, 'team'), { recursive: true });
    symlinkSync(join(base, 'copy'), join(base, 'team'));
    await expectAllUnsafe(storage, 1);
  });
});

describe('a storage path the file system cannot hold is a typed error, never a raw Node error', () => {
  it.each([
    ['under a regular file', (base: string) => (writeFileSync(join(base, 'file'), 'x'), join(base, 'file', 'records')), 'UNSAFE_STORAGE_PATH'],
    ['deep under a regular file', (base: string) => (writeFileSync(join(base, 'file'), 'x'), join(base, 'file', 'a', 'b')), 'UNSAFE_STORAGE_PATH'],
    ['under a FIFO', (base: string) => (execFileSync('mkfifo', [join(base, 'fifo')]), join(base, 'fifo', 'records')), 'UNSAFE_STORAGE_PATH'],
    ['a FIFO', (base: string) => (execFileSync('mkfifo', [join(base, 'fifo')]), join(base, 'fifo')), 'UNSAFE_STORAGE_PATH'],
    ['under a dangling symlink', (base: string) => (symlinkSync(join(base, 'missing'), join(base, 'dangling')), join(base, 'dangling', 'records')), 'UNSAFE_STORAGE_PATH'],
    ['under a symlink loop', (base: string) => (symlinkSync(join(base, 'loop'), join(base, 'loop')), join(base, 'loop', 'records')), 'UNSAFE_STORAGE_PATH'],
    ['with a name longer than the file system allows', (base: string) => join(base, 'x'.repeat(300)), 'INVALID_STORAGE_OPTIONS'],
  ] as const)('a directory %s', (_label, make, code) => {
    const error = createError({ directory: make(tempDirectory()) });
    expect(isStorageError(error, code), String(error)).toBe(true);
  });
});

describe('symlinked paths, continued', () => {
  it('a temp folder replaced by a symlink after creation', async () => {
    const base = tempDirectory();
    const storage = createFsStorage({ directory: base });
    rmSync(join(base, 'default', '.tmp'), { recursive: true });
    mkdirSync(join(base, 'elsewhere'));
    symlinkSync(join(base, 'elsewhere'), join(base, 'default', '.tmp'));
    await storageError(() => storage.append('run', 0, newEvents('a', 1)), 'UNSAFE_STORAGE_PATH');
    expect(await storage.head('run')).toBe(0);
  });
});
