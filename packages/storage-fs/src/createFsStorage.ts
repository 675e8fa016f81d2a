import { linkSync, renameSync, unlinkSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { StorageError, assertRevision, assertStreamId } from '@roundtable/storage';
import { changeHints, corruptStream, duplicateEventId, prepareAppend, resolveAgainstHead, resolveStorageOptions, storageIoError } from '@roundtable/storage/adapter';
import type { NewEvent, ReadOptions, RunStorage, StorageIdentity, StorageOptions } from '@roundtable/storage';
import type { PreparedAppend } from '@roundtable/storage/adapter';
import packageJson from '../package.json' with { type: 'json' };
import { batchEvents, batchFileName, encodeBatchFile } from './batchFile.js';
import { eventIterator } from './eventIterator.js';
import type { EventSource } from './eventIterator.js';
import { existingStoreDirectorySync } from './existingStoreDirectory.js';
import { TEMP_FOLDER, folderNameOf, idOfFolderName } from './folderName.js';
import { HEAD_MARKER } from './headMarker.js';
import { SEGMENT_TARGET_BYTES, packSegment } from './packSegment.js';
import { directoryExistsSync, ensureDirectory, ensureDirectorySync, errorCode, fsyncDirectory, prepareStorageDirectorySync, storagePathError, unsafePath } from './safeFs.js';
import { StreamState } from './streamState.js';
import { removeFileQuietly, removeStaleTempFilesSync, writeTempFile } from './tempFiles.js';
import { watchStreamFolder } from './watchStreamFolder.js';

export const FS_STORAGE_ADAPTER = '@roundtable/storage-fs';

/** Options of `createFsStorage`: the common storage options plus where the data lives. */
export interface FsStorageOptions extends StorageOptions {
  /** The storage directory; created (mode 0700) if missing, unless `readOnly`. It must not be a symlink. */
  readonly directory: string;
  /**
   * How many batch files a stream folder gathers before an append packs the oldest of them into
   * one segment file (default 256; at least 1). Fewer means fewer files per read and more
   * packing work per append.
   */
  readonly segmentBatches?: number;
}

/** The default of `segmentBatches`. */
export const DEFAULT_SEGMENT_BATCHES = 256;

/** How many lost link races one append retries before deciding the stream is damaged. */
const MAX_COMMIT_ATTEMPTS = 5;
const MAX_SEGMENT_BATCHES = 1_000_000;

function segmentBatchesOf(options: FsStorageOptions): number {
  const value = options.segmentBatches ?? DEFAULT_SEGMENT_BATCHES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_SEGMENT_BATCHES) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', `segmentBatches must be an integer from 1 to ${MAX_SEGMENT_BATCHES}.`);
  }
  return value;
}

/**
 * A `RunStorage` over a directory: `<directory>/<namespace>/<stream>/`, holding one immutable,
 * checksummed file per committed batch, packed now and then into checksummed segment files.
 * Creates the directory tree (mode 0700) if missing and refuses symlinked paths with
 * UNSAFE_STORAGE_PATH. Several instances and processes may share one directory. With
 * `readOnly: true` it creates and removes nothing: the directory must already be a store
 * (NOT_A_STORE otherwise) and every append is refused (STORAGE_READ_ONLY).
 */
export function createFsStorage(options: FsStorageOptions): RunStorage {
  if (typeof options !== 'object' || options === null) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', 'createFsStorage needs an options object with a directory.');
  }
  const config = resolveStorageOptions(options);
  const segmentBatches = segmentBatchesOf(options);
  if (typeof options.directory !== 'string' || options.directory.length === 0 || options.directory.includes('\0')) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', 'directory must be a non-empty path.');
  }
  const directory = resolve(options.directory);
  let location: string;
  let namespaceFolder: string;
  let tempFolder: string;
  try {
    location = config.readOnly ? existingStoreDirectorySync(directory) : prepareStorageDirectorySync(directory);
    namespaceFolder = join(location, folderNameOf(config.namespace));
    tempFolder = join(namespaceFolder, TEMP_FOLDER);
    // A reader makes nothing: a namespace nobody wrote to is simply empty (checked, not created).
    if (config.readOnly) directoryExistsSync(namespaceFolder);
    else {
      ensureDirectorySync(namespaceFolder);
      ensureDirectorySync(tempFolder);
      removeStaleTempFilesSync(tempFolder);
    }
  } catch (error) {
    throw storagePathError(directory, error);
  }

  const identity: StorageIdentity = Object.freeze({ adapter: FS_STORAGE_ADAPTER, version: packageJson.version, namespace: config.namespace, location });
  const streamStates = new Map<string, StreamState>();
  const closing = new AbortController();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new StorageError('STORAGE_CLOSED', 'This storage instance is closed.');
  }

  function stateOf(streamId: string): StreamState {
    let state = streamStates.get(streamId);
    if (state === undefined) {
      state = new StreamState(streamId, join(namespaceFolder, folderNameOf(streamId)));
      streamStates.set(streamId, state);
    }
    return state;
  }

  /**
   * Checks the folders every operation goes through, the storage directory first: each must
   * still be a real directory. Swapped for a symlink (even to a copy), it is refused rather than
   * followed, as a fresh instance would refuse it. Returns whether the namespace folder exists:
   * only a read-only instance can find it missing (a namespace nobody wrote to yet).
   */
  function checkNamespaceFolder(): boolean {
    if (!directoryExistsSync(location)) throw unsafePath(location, 'the storage directory has disappeared');
    if (directoryExistsSync(namespaceFolder)) return true;
    if (config.readOnly) return false;
    throw unsafePath(namespaceFolder, 'the namespace folder has disappeared');
  }

  async function catchUp(state: StreamState): Promise<void> {
    checkNamespaceFolder();
    await state.catchUp();
  }

  async function headOf(streamId: string): Promise<number> {
    assertOpen();
    assertStreamId(streamId);
    const state = stateOf(streamId);
    return state.exclusive(async () => {
      await catchUp(state);
      return state.head;
    });
  }

  /**
   * Commits a batch atomically: the whole file is written and fsynced under a temp name, then
   * hard-linked to its final name. `link` fails with EEXIST when another writer (any process)
   * committed that revision first, which makes it the cross-process exclusion; no lock file
   * exists that a crash could leave behind. A link that succeeds over a revision a segment
   * already holds (this instance's head was stale and the batch file there was packed away) is
   * taken back. Then the stream folder is fsynced and the temp file renamed to the head marker.
   * Returns false when the race was lost.
   */
  async function commit(state: StreamState, prepared: PreparedAppend): Promise<boolean> {
    if (!directoryExistsSync(tempFolder)) throw unsafePath(tempFolder, 'the temp folder has disappeared');
    const first = prepared.expectedRevision + 1;
    const bytes = encodeBatchFile(state.streamId, first, prepared.texts);
    const tempPath = await writeTempFile(tempFolder, bytes);
    let marked = false;
    try {
      if (!state.folderExists) await ensureDirectory(state.folder);
      const path = join(state.folder, batchFileName(first));
      try {
        linkSync(tempPath, path);
      } catch (error) {
        if (errorCode(error) === 'EEXIST') return false;
        throw error;
      }
      if (state.segmentHolds(first)) {
        unlinkSync(path);
        return false;
      }
      state.addCommitted(prepared, bytes.length);
      await fsyncDirectory(state.folder);
      // The marker lags at worst (a crash before this rename, or a racing writer's older batch
      // renamed last): it records a revision at or below the head, never above it.
      try {
        renameSync(tempPath, join(state.folder, HEAD_MARKER));
        marked = true;
      } catch {
        // A head marker that cannot be replaced (damage in its place) only weakens the check.
      }
      return true;
    } finally {
      if (!marked) removeFileQuietly(tempPath);
    }
  }

  async function appendBatch(streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
    assertOpen();
    const prepared = prepareAppend(config, streamId, expectedRevision, events);
    const state = stateOf(streamId);
    // An append accepted before close() still completes: close() waits for it.
    return state.exclusive(async () => {
      for (let attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt++) {
        await catchUp(state);
        const outcome = await resolveAgainstHead(prepared, state.head, (from, to) => state.committedTexts(from, to));
        if (outcome !== 'write') return outcome;
        state.gatherEventIds();
        const repeated = prepared.eventIds.find((eventId) => state.hasEventId(eventId));
        if (repeated !== undefined) throw duplicateEventId(repeated, streamId);
        if (await commit(state, prepared)) {
          // Packing is queued behind this append rather than inside it; it only ever speeds up
          // reads, so a pack that fails (a full disk, damage it found) leaves the batch files
          // as they are for the next one to try.
          if (!state.packDue(segmentBatches, SEGMENT_TARGET_BYTES)) return prepared.nextHead;
          void state.exclusive(async () => {
            try {
              while (await packSegment(state, tempFolder, segmentBatches));
            } catch {
              // Left for the next append to try again.
            }
          });
          return prepared.nextHead;
        }
        // Another writer linked this batch's file name first: catch up and judge again.
      }
      throw corruptStream(streamId, `batch file ${batchFileName(expectedRevision + 1)} exists but could not be read as the next batch.`);
    });
  }

  /** What `read` iterates: checks the call, then the batches holding `after + 1` up to the head when iteration starts. */
  async function openRead(streamId: string, options: ReadOptions): Promise<EventSource> {
    assertOpen();
    assertStreamId(streamId);
    const after = options?.after ?? 0;
    assertRevision(after, 'after');
    const state = stateOf(streamId);
    const head = await state.exclusive(async () => {
      await catchUp(state);
      return state.head;
    });
    const batches = after >= head ? null : state.batches(after + 1, head);
    return {
      async next() {
        const item = await batches?.next();
        if (item === undefined || item.done === true) return null;
        assertOpen();
        const events = batchEvents(streamId, item.value);
        state.gather(item.value, events);
        const within = events[0]!.revision > after && events.at(-1)!.revision <= head;
        return within ? events : events.filter((event) => event.revision > after && event.revision <= head);
      },
      async stop() {
        await batches?.return(undefined);
      },
    };
  }

  async function* listStreams(): AsyncGenerator<{ streamId: string; head: number }> {
    assertOpen();
    if (!checkNamespaceFolder()) return;
    const entries = await readdir(namespaceFolder, { withFileTypes: true });
    const streamIds: string[] = [];
    for (const entry of entries) {
      if (entry.name === TEMP_FOLDER) continue;
      const path = join(namespaceFolder, entry.name);
      if (entry.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link');
      const streamId = idOfFolderName(entry.name);
      if (streamId === null || !entry.isDirectory()) {
        throw corruptStream(entry.name, `${path} is not a stream folder (namespace ${config.namespace}).`);
      }
      streamIds.push(streamId);
    }
    streamIds.sort();
    for (const streamId of streamIds) {
      const head = await headOf(streamId);
      if (head > 0) yield { streamId, head };
    }
  }

  return {
    identity,
    async head(streamId) {
      try {
        return await headOf(streamId);
      } catch (error) {
        throw storageIoError(location, error);
      }
    },
    read(streamId, readOptions = {}) {
      return eventIterator(
        () => openRead(streamId, readOptions),
        (error) => storageIoError(location, error),
      );
    },
    async append(streamId, expectedRevision, events) {
      try {
        return await appendBatch(streamId, expectedRevision, events);
      } catch (error) {
        throw storageIoError(location, error);
      }
    },
    async *streams() {
      try {
        yield* listStreams();
      } catch (error) {
        throw storageIoError(location, error);
      }
    },
    /**
     * Change hints for `followStream`: a watch of the stream's folder (of the namespace folder
     * until the stream folder exists). They end when `signal` aborts or this instance closes.
     * Where the platform cannot watch, no hint comes and followers poll.
     */
    changes(streamId: string, signal: AbortSignal): AsyncIterable<void> {
      assertOpen();
      assertStreamId(streamId);
      const folder = stateOf(streamId).folder;
      return changeHints(AbortSignal.any([signal, closing.signal]), (notify) => watchStreamFolder(folder, notify));
    },
    async close() {
      closed = true;
      closing.abort();
      await Promise.all([...streamStates.values()].map((state) => state.idle()));
    },
  };
}
