import { chmodSync, closeSync, constants, fstatSync, fsync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { StorageError, isStorageError } from '@roundtable/storage';
import { corruptStream, storageIoError } from '@roundtable/storage/adapter';

/** Modes the adapter sets explicitly on what it creates, whatever the umask. */
export const DIRECTORY_MODE = 0o700;
export const FILE_MODE = 0o600;

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const DIRECTORY_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
// O_NONBLOCK: a FIFO dropped where a batch file belongs must not hang a reader.
const READ_FILE_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/** The `code` of a Node system error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

export function unsafePath(path: string, reason: string, cause?: unknown): StorageError {
  return new StorageError('UNSAFE_STORAGE_PATH', `Refusing to use ${path}: ${reason}.`, { details: { path }, cause });
}

/**
 * A failure of the file system around the storage directory, as the storage error a caller can
 * act on: a regular file or a dangling symlink among its parents, or a symlink loop, is
 * UNSAFE_STORAGE_PATH; a path too long INVALID_STORAGE_OPTIONS; anything else (permissions, a
 * read-only or full disk, I/O) STORAGE_IO_ERROR. Storage errors pass through.
 */
export function storagePathError(path: string, error: unknown): unknown {
  if (isStorageError(error)) return error;
  const code = errorCode(error);
  if (code === 'ENOTDIR') return unsafePath(path, 'a parent of it is not a directory', error);
  // mkdir fails with ENOENT under a dangling symlink: the parent it points to does not exist.
  if (code === 'ENOENT') return unsafePath(path, 'a parent of it is missing or a dangling symbolic link', error);
  if (code === 'ELOOP') return unsafePath(path, 'its path has too many symbolic links', error);
  if (code === 'ENAMETOOLONG') return new StorageError('INVALID_STORAGE_OPTIONS', `The storage path ${path} is too long.`, { details: { path }, cause: error });
  return storageIoError(path, error);
}

function requireRealDirectory(path: string, stats: Stats): void {
  if (stats.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link');
  if (!stats.isDirectory()) throw unsafePath(path, 'it is not a directory');
}

/** Rethrows a no-follow open's failure on a symlink (ELOOP) as UNSAFE_STORAGE_PATH. */
function refuseSymlink(path: string, error: unknown): never {
  if (errorCode(error) === 'ELOOP') throw unsafePath(path, 'it is a symbolic link', error);
  if (errorCode(error) === 'ENOTDIR') throw unsafePath(path, 'it is not a directory', error);
  throw error;
}

/** Whether a real directory is at `path`; a symlink or anything else there is UNSAFE_STORAGE_PATH. */
export function directoryExistsSync(path: string): boolean {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    if (errorCode(error) === 'ENOTDIR') throw unsafePath(path, 'a parent of it is not a directory', error);
    throw error;
  }
  requireRealDirectory(path, stats);
  return true;
}

/** Opens a directory without following a symlink (UNSAFE_STORAGE_PATH if it is one). */
async function openDirectory(path: string): Promise<FileHandle> {
  try {
    return await open(path, DIRECTORY_FLAGS);
  } catch (error) {
    return refuseSymlink(path, error);
  }
}

/** fsync a directory so the names created in it survive a power loss. Only the fsync leaves the calling thread. */
export async function fsyncDirectory(path: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(path, DIRECTORY_FLAGS);
  } catch (error) {
    refuseSymlink(path, error);
  }
  try {
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync on the thread pool: the one step of a commit that waits for the disk. */
export function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error === null ? resolve() : reject(error))));
}

/** `followSymlink` only for an ancestor of the storage directory, which may be a symlink. */
function fsyncDirectorySync(path: string, followSymlink = false): void {
  let fd: number;
  try {
    fd = openSync(path, followSymlink ? O_RDONLY | O_DIRECTORY : DIRECTORY_FLAGS);
  } catch (error) {
    refuseSymlink(path, error);
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates one directory with mode 0700 and makes its name durable. An existing directory is
 * only checked (real directory, not a symlink), never re-moded: it may be the user's.
 */
export async function ensureDirectory(path: string): Promise<void> {
  try {
    await mkdir(path, { mode: DIRECTORY_MODE });
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    if (!directoryExistsSync(path)) throw unsafePath(path, 'it vanished while being created');
    return;
  }
  const handle = await openDirectory(path);
  try {
    await handle.chmod(DIRECTORY_MODE);
  } finally {
    await handle.close();
  }
  await fsyncDirectory(dirname(path));
}

export function ensureDirectorySync(path: string): void {
  try {
    mkdirSync(path, { mode: DIRECTORY_MODE });
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    if (!directoryExistsSync(path)) throw unsafePath(path, 'it vanished while being created');
    return;
  }
  chmodSync(path, DIRECTORY_MODE);
  fsyncDirectorySync(dirname(path));
}

/**
 * Makes sure the storage directory exists (creating missing parts with mode 0700) and is a real
 * directory, not a symlink, and returns its real absolute path. Symlinks among its ancestors are
 * allowed (macOS's /tmp and /var are symlinks); the directory itself and everything inside may not be.
 */
export function prepareStorageDirectorySync(path: string): string {
  if (!directoryExistsSync(path)) {
    const firstCreated = mkdirSync(path, { recursive: true, mode: DIRECTORY_MODE });
    if (firstCreated !== undefined) {
      const created: string[] = [];
      for (let current = path; ; current = dirname(current)) {
        created.unshift(current);
        if (current === firstCreated || dirname(current) === current) break;
      }
      for (const directory of created) {
        if (!directoryExistsSync(directory)) throw unsafePath(directory, 'it vanished while being created');
        chmodSync(directory, DIRECTORY_MODE);
      }
      fsyncDirectorySync(dirname(firstCreated), true);
      for (const directory of created.slice(0, -1)) fsyncDirectorySync(directory);
    }
    if (!directoryExistsSync(path)) throw unsafePath(path, 'it vanished while being created');
  }
  return realpathSync(path);
}

/** Opens a file for reading without following a symlink: a file descriptor, or null when nothing is there. */
export function openFileForReadingSync(path: string): number | null {
  try {
    return openSync(path, READ_FILE_FLAGS);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    return refuseSymlink(path, error);
  }
}

/**
 * False when nothing is at `path` (not following a symlink); true when something is, or when
 * lstat fails otherwise (the no-follow open that follows then reports it as it always did). A
 * probe for the next batch or segment file nearly always finds nothing: an open that fails
 * builds a Node error with its stack (several µs, more than the system call), where lstat with
 * `throwIfNoEntry: false` returns undefined and builds nothing.
 */
function mayExistSync(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}


/** Far above any batch or segment the limits allow; a bigger file is not ours, and is not read into memory. */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;

/** How `readFileSync` reads. */
export interface ReadFileOptions {
  /** Read at most this many bytes from the start (a header). */
  readonly limit?: number;
  /** The file is probably not there (a probe for the next one): look with lstat before opening. */
  readonly probe?: boolean;
}

/**
 * Reads the file `name` in `folder` (a batch, segment or marker of `streamId`) synchronously,
 * without following a symlink: its bytes, or null when nothing is there. Something that is not
 * a regular file, or is far too large, is CORRUPT_EVENT_STREAM. With `limit`, reads at most
 * that many bytes from the start (a header). Committed files never change, so one read of the
 * size fstat gave is the whole file; if it is not (the file was tampered with meanwhile), the
 * checksum check catches it. A probe that finds nothing is the same as an open a moment earlier.
 */
export function readFileSync(folder: string, name: string, streamId: string, options: ReadFileOptions = {}): Buffer | null {
  const path = join(folder, name);
  if (options.probe === true && !mayExistSync(path)) return null;
  const fd = openFileForReadingSync(path);
  if (fd === null) return null;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw corruptStream(streamId, `${name} is not a regular file.`);
    if (stats.size > MAX_FILE_BYTES) throw corruptStream(streamId, `${name} is too large to be a batch or segment file.`);
    const size = Math.min(stats.size, options.limit ?? Number.POSITIVE_INFINITY);
    const bytes = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
