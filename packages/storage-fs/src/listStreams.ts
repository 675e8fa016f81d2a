import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { corruptStream } from '@roundtable/storage/adapter';
import { assertOpen, checkNamespaceFolder } from './fsContext.js';
import type { FsContext } from './fsContext.js';
import { TEMP_FOLDER, idOfFolderName } from './folderName.js';
import { readHead } from './readHead.js';
import { unsafePath } from './safeFs.js';

/** `RunStorage.streams` of the fs adapter, before its error mapping: the stream folders in id order, each with its head. */
export async function* listStreams(context: FsContext): AsyncGenerator<{ streamId: string; head: number }> {
  assertOpen(context);
  if (!checkNamespaceFolder(context)) return;
  const entries = await readdir(context.namespaceFolder, { withFileTypes: true });
  const streamIds: string[] = [];
  for (const entry of entries) {
    if (entry.name === TEMP_FOLDER) continue;
    const path = join(context.namespaceFolder, entry.name);
    if (entry.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link');
    const streamId = idOfFolderName(entry.name);
    if (streamId === null || !entry.isDirectory()) {
      throw corruptStream(entry.name, `${path} is not a stream folder (namespace ${context.config.namespace}).`);
    }
    streamIds.push(streamId);
  }
  streamIds.sort();
  for (const streamId of streamIds) {
    const head = await readHead(context, streamId);
    if (head > 0) yield { streamId, head };
  }
}
