import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Everything under `path` (itself included), keyed by the path relative to it (`.` for itself):
 * `dir <mode>`, `file <mode> <sha256>`, `link -> <target>`, or `missing` when nothing is there.
 * Symlinks are recorded, never followed. Two snapshots are equal when nothing was created,
 * removed, re-moded or changed by a byte (times are left out: a reader may update atimes).
 */
export function snapshotTree(path: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const visit = (current: string) => {
    const key = relative(path, current) || '.';
    const stats = lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) {
      entries[key] = 'missing';
      return;
    }
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isSymbolicLink()) entries[key] = `link -> ${readlinkSync(current)}`;
    else if (stats.isDirectory()) {
      entries[key] = `dir ${mode}`;
      for (const name of readdirSync(current).sort()) visit(join(current, name));
    } else if (stats.isFile()) entries[key] = `file ${mode} ${createHash('sha256').update(readFileSync(current)).digest('hex')}`;
    else entries[key] = `other ${mode}`;
  };
  visit(path);
  return entries;
}
