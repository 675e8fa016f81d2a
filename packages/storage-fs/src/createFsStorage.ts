import type { RunStorage } from '@roundtable/storage';
import { storageIoError } from '@roundtable/storage/adapter';
import { appendToStream } from './appendToStream.js';
import { closeFsContext, openFsContext } from './fsContext.js';
import type { FsStorageOptions } from './fsContext.js';
import { listStreams } from './listStreams.js';
import { readHead } from './readHead.js';
import { readStream } from './readStream.js';
import { streamChanges } from './streamChanges.js';

/**
 * A `RunStorage` over a directory: `<directory>/<namespace>/<stream>/`, holding one immutable,
 * checksummed file per committed batch, packed now and then into checksummed segment files.
 * Creates the directory tree (mode 0700) if missing and refuses symlinked paths with
 * UNSAFE_STORAGE_PATH. Several instances and processes may share one directory. With
 * `readOnly: true` it creates and removes nothing: the directory must already be a store
 * (NOT_A_STORE otherwise) and every append is refused (STORAGE_READ_ONLY). Each operation is a
 * file of its own over the instance's `FsContext`; here a failure of the file system becomes
 * STORAGE_IO_ERROR.
 */
export function createFsStorage(options: FsStorageOptions): RunStorage {
  const context = openFsContext(options);
  const { location } = context;
  return {
    identity: context.identity,
    async head(streamId) {
      try {
        return await readHead(context, streamId);
      } catch (error) {
        throw storageIoError(location, error);
      }
    },
    read: (streamId, readOptions) => readStream(context, streamId, readOptions),
    async append(streamId, expectedRevision, events) {
      try {
        return await appendToStream(context, streamId, expectedRevision, events);
      } catch (error) {
        throw storageIoError(location, error);
      }
    },
    async *streams() {
      try {
        yield* listStreams(context);
      } catch (error) {
        throw storageIoError(location, error);
      }
    },
    changes: (streamId, signal) => streamChanges(context, streamId, signal),
    close: () => closeFsContext(context),
  };
}
