import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `target` with `content` atomically: an exclusive new temp file (mode 0600) in the
 * same directory, written and synced, then renamed over the target. A symlink at the target is
 * replaced, not followed; an existing file at a temp name is never touched (another name is
 * tried).
 */
export async function writeFileAtomically(target: string, content: string): Promise<void> {
  const directory = dirname(target);
  for (;;) {
    const temp = join(directory, `.${basename(target)}.${randomBytes(8).toString('hex')}.tmp`);
    let handle;
    try {
      handle = await open(temp, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
      await handle.close();
      handle = undefined;
      await rename(temp, target);
      return;
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  }
}
