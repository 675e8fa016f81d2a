import { randomBytes } from 'node:crypto';
import { lstat, open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { roomsIo, roomsIoError } from './roomsError.js';

/** What a room file looked like right after this process wrote it: a later mismatch means someone else changed it. */
export interface WrittenFile {
  readonly dev: number;
  readonly ino: number;
  size: number;
}

/**
 * Replaces `target` with `content` atomically: an exclusive new temp file (mode 0600) in the
 * same directory, written and synced, then renamed over the target. A symlink at the target is
 * replaced, not followed; an existing file at a temp name is never touched (another name is
 * tried). Failures are ROOMS_IO_ERROR, and the temp file is removed.
 */
export async function writeFileAtomically(target: string, content: string): Promise<WrittenFile> {
  const directory = dirname(target);
  for (;;) {
    const temp = join(directory, `.${basename(target)}.${randomBytes(8).toString('hex')}.tmp`);
    let handle: FileHandle | undefined;
    try {
      handle = await open(temp, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw roomsIoError('create a temporary file in', directory, error);
    }
    try {
      const file = handle;
      await roomsIo('write', temp, async () => {
        await file.writeFile(content, 'utf8');
        await file.sync();
      });
      const stats = await roomsIo('inspect', temp, () => file.stat());
      handle = undefined;
      await roomsIo('close', temp, () => file.close());
      await roomsIo('replace', target, () => rename(temp, target));
      return { dev: stats.dev, ino: stats.ino, size: stats.size };
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  }
}

/** The identity and size of the file at `path` now, or null when there is no regular file there (not followed if a symlink). */
export async function currentFile(path: string): Promise<WrittenFile | null> {
  try {
    const stats = await lstat(path);
    return stats.isFile() ? { dev: stats.dev, ino: stats.ino, size: stats.size } : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw roomsIoError('inspect', path, error);
  }
}
