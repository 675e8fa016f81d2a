import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, lstatSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { FILE_MODE, errorCode, fsyncFd, unsafePath } from './safeFs.js';

/** A temp file older than this is abandoned whoever wrote it: no append takes an hour. */
export const STALE_TEMP_AGE_MS = 60 * 60 * 1000;

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
const TEMP_FILE_NAME = /^([0-9a-f]{8})-([1-9]\d*)-[0-9a-f]{16}\.tmp$/;
// Which machine wrote a temp file: a pid only means something on the machine that owns it.
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** Random bytes drawn once for many temp names: one draw costs more than the name's other work. */
const RANDOM_POOL_BYTES = 4096;
const NAME_RANDOM_BYTES = 8;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

/** 16 random hex digits, as unpredictable as a fresh `randomBytes(8)` each (every byte is used once). */
function randomHex(): string {
  if (randomOffset + NAME_RANDOM_BYTES > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomOffset = 0;
  }
  const hex = randomPool.toString('hex', randomOffset, randomOffset + NAME_RANDOM_BYTES);
  randomOffset += NAME_RANDOM_BYTES;
  return hex;
}

/**
 * Writes `bytes` to a new, uniquely named file in `directory` (exclusive create, mode 0600,
 * never through a symlink) and fsyncs it. Returns its path; on failure nothing is left behind.
 * Only the fsync leaves the calling thread: open, chmod, write and close of a small file on a
 * local disk take microseconds, a thread-pool round trip each costs more than that.
 */
export async function writeTempFile(directory: string, bytes: Uint8Array): Promise<string> {
  const path = join(directory, `${HOST_TAG}-${process.pid}-${randomHex()}.tmp`);
  let fd: number;
  try {
    fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, FILE_MODE);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw unsafePath(path, 'it is a symbolic link', error);
    throw error;
  }
  try {
    fchmodSync(fd, FILE_MODE);
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
    await fsyncFd(fd);
  } catch (error) {
    closeSync(fd);
    removeFileQuietly(path);
    throw error;
  }
  closeSync(fd);
  return path;
}

/** Removes a file if it is there; a failure (already gone, not ours) changes nothing that matters. */
export function removeFileQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or not ours to remove.
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== 'ESRCH';
  }
}

/**
 * Removes temp files that no writer will ever link: those written on this machine by a process
 * that is gone, and any older than an hour. Others (a live writer's, a foreign file) stay.
 * Best-effort: a temp file is never committed data, so a failure here changes nothing.
 */
export function removeStaleTempFilesSync(directory: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP_FILE_NAME.exec(name);
    if (match === null) continue;
    const path = join(directory, name);
    try {
      const stats = lstatSync(path);
      if (!stats.isFile()) continue;
      const writerGone = match[1] === HOST_TAG && Number(match[2]) !== process.pid && !isProcessAlive(Number(match[2]));
      if (writerGone || now - stats.mtimeMs > STALE_TEMP_AGE_MS) unlinkSync(path);
    } catch {
      // Another instance removed it first, or it is not ours to remove.
    }
  }
}
