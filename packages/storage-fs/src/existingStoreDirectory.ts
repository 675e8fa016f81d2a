import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { notAStore, quotedNames } from '@roundtable/storage/adapter';
import { batchFileName } from './batchFile.js';
import { TEMP_FOLDER, idOfFolderName } from './folderName.js';
import { directoryExistsSync } from './safeFs.js';
import { segmentFileName } from './segmentFile.js';

/** Every stream with events holds revision 1 in one of these: its first batch file, or its first segment. */
const FIRST_FILES = [batchFileName(1), segmentFileName(1)];
const FIX = 'Pass the directory a Roundtable program gave createFsStorage as its directory (it holds one folder per namespace, such as default/).';

function isFile(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

function isStreamFolder(path: string): boolean {
  return FIRST_FILES.some((name) => isFile(join(path, name)));
}

function sortedEntries(path: string): Dirent[] {
  return readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Whether `path` is a namespace folder: every writer makes `.tmp/` in the namespace it opens,
 * and a copy without it (`.tmp/` need not be backed up) still has a stream folder holding the
 * first batch or segment of its stream. Symlinks are never followed (lstat).
 */
function isNamespaceFolder(path: string): boolean {
  if (lstatSync(join(path, TEMP_FOLDER), { throwIfNoEntry: false })?.isDirectory() === true) return true;
  return readdirSync(path, { withFileTypes: true }).some((entry) => entry.isDirectory() && idOfFolderName(entry.name) !== null && isStreamFolder(join(path, entry.name)));
}

function describeEntries(entries: readonly Dirent[]): string {
  const names = quotedNames(entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)), 5);
  return `it holds ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} (${names}), ${entries.length === 1 ? 'not' : 'none of them'} a namespace folder (a folder named after a namespace, holding .tmp/ or a stream folder with its first batch or segment file)`;
}

/** "directory D" or "directory D with namespace N", for the folder of a namespace at `namespaceFolder`. */
function storeOf(namespaceFolder: string): string {
  const namespace = idOfFolderName(basename(namespaceFolder));
  return `directory ${dirname(namespaceFolder)}${namespace === null ? '' : ` with namespace ${JSON.stringify(namespace)}`}`;
}

/**
 * For a read-only open: the real path of the fs store at `path`, which must already be one.
 * Nothing is created or changed. A store is a directory holding at least one namespace folder
 * (`isNamespaceFolder`); anything else is NOT_A_STORE naming what is there (nothing, an empty
 * directory, foreign entries, or one of a store's own namespace or stream folders, with the
 * path to pass instead). A symlink or a file at `path` is UNSAFE_STORAGE_PATH, as for a writer.
 */
export function existingStoreDirectorySync(path: string): string {
  if (!directoryExistsSync(path)) throw notAStore(path, 'there is no directory there', FIX);
  const location = realpathSync(path);
  const entries = sortedEntries(location);
  if (entries.some((entry) => entry.isDirectory() && idOfFolderName(entry.name) !== null && isNamespaceFolder(join(location, entry.name)))) return location;
  if (entries.length === 0) throw notAStore(location, 'it is an empty directory', FIX);
  if (isStreamFolder(location)) {
    throw notAStore(location, 'it is the folder of one stream inside a store', `Pass the store: ${storeOf(dirname(location))}.`);
  }
  if (isNamespaceFolder(location)) throw notAStore(location, 'it is the folder of one namespace inside a store', `Pass the store: ${storeOf(location)}.`);
  throw notAStore(location, describeEntries(entries), FIX);
}
