import { link, readdir, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  StorageError,
  assertRevision,
  assertStreamId,
  changeHints,
  corruptStream,
  duplicateEventId,
  prepareAppend,
  resolveAgainstHead,
  resolveStorageOptions,
  storageIoError,
} from '@roundtable/storage';
import type { NewEvent, PreparedAppend, ReadOptions, RunStorage, StorageConfig, StorageIdentity, StorageOptions, StoredEvent } from '@roundtable/storage';
import packageJson from '../package.json' with { type: 'json' };
import { batchFileName, encodeBatchFile } from './batchFile.js';
import { folderNameOf, idOfFolderName } from './folderName.js';
import { directoryExists, ensureDirectory, ensureDirectorySync, errorCode, fsyncDirectory, prepareStorageDirectorySync, storagePathError, unsafePath } from './safeFs.js';
import { StreamState } from './streamState.js';
import { removeStaleTempFilesSync, writeTempFile } from './tempFiles.js';
import { watchStreamFolder } from './watchStreamFolder.js';

export const FS_STORAGE_ADAPTER = '@roundtable/storage-fs';

/** Options of `createFsStorage`: the common storage options plus where the data lives. */
export interface FsStorageOptions extends StorageOptions {
  /** The storage directory; created (mode 0700) if missing. It must not be a symlink. */
  readonly directory: string;
}

/** The name of the folder, inside each namespace, that holds uncommitted temp files. */
const TEMP_FOLDER = '.tmp';
/** How many lost link races one append retries before deciding the stream is damaged. */
const MAX_COMMIT_ATTEMPTS = 5;

function closedError(): StorageError {
  return new StorageError('STORAGE_CLOSED', 'This storage instance is closed.');
}

class FsRunStorage implements RunStorage {
  readonly identity: StorageIdentity;
  private readonly streamStates = new Map<string, StreamState>();
  private closed = false;
  private readonly closing = new AbortController();

  constructor(
    private readonly config: StorageConfig,
    location: string,
    private readonly namespaceFolder: string,
    private readonly tempFolder: string,
  ) {
    this.identity = Object.freeze({ adapter: FS_STORAGE_ADAPTER, version: packageJson.version, namespace: config.namespace, location });
  }

  async head(streamId: string): Promise<number> {
    try {
      return await this.headOf(streamId);
    } catch (error) {
      throw storageIoError(this.identity.location, error);
    }
  }

  async *read(streamId: string, options: ReadOptions = {}): AsyncGenerator<StoredEvent> {
    try {
      yield* this.readFrom(streamId, options);
    } catch (error) {
      throw storageIoError(this.identity.location, error);
    }
  }

  async append(streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
    try {
      return await this.appendBatch(streamId, expectedRevision, events);
    } catch (error) {
      throw storageIoError(this.identity.location, error);
    }
  }

  async *streams(): AsyncGenerator<{ streamId: string; head: number }> {
    try {
      yield* this.listStreams();
    } catch (error) {
      throw storageIoError(this.identity.location, error);
    }
  }

  private async headOf(streamId: string): Promise<number> {
    this.assertOpen();
    assertStreamId(streamId);
    const state = this.stateOf(streamId);
    return state.exclusive(async () => {
      await this.catchUp(state);
      return state.head;
    });
  }

  private async *readFrom(streamId: string, options: ReadOptions): AsyncGenerator<StoredEvent> {
    this.assertOpen();
    assertStreamId(streamId);
    const after = options?.after ?? 0;
    assertRevision(after, 'after');
    const state = this.stateOf(streamId);
    const head = await state.exclusive(async () => {
      await this.catchUp(state);
      return state.head;
    });
    if (after >= head) return;
    for (const batch of state.batches(after + 1, head)) {
      this.assertOpen();
      for (const event of batch.events) {
        if (event.revision > after) yield event;
      }
    }
  }

  private async appendBatch(streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
    this.assertOpen();
    const prepared = prepareAppend(this.config, streamId, expectedRevision, events);
    const state = this.stateOf(streamId);
    // An append accepted before close() still completes: close() waits for it.
    return state.exclusive(async () => {
      for (let attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt++) {
        await this.catchUp(state);
        const outcome = await resolveAgainstHead(prepared, state.head, (from, to) => state.committedTexts(from, to));
        if (outcome !== 'write') return outcome;
        const repeated = prepared.eventIds.find((eventId) => state.hasEventId(eventId));
        if (repeated !== undefined) throw duplicateEventId(repeated, streamId);
        if (await this.commit(state, prepared)) return prepared.nextHead;
        // Another writer linked this batch's file name first: catch up and judge again.
      }
      throw corruptStream(streamId, `batch file ${batchFileName(expectedRevision + 1)} exists but could not be read as the next batch.`);
    });
  }

  private async *listStreams(): AsyncGenerator<{ streamId: string; head: number }> {
    this.assertOpen();
    await this.checkNamespaceFolder();
    const entries = await readdir(this.namespaceFolder, { withFileTypes: true });
    const streamIds: string[] = [];
    for (const entry of entries) {
      if (entry.name === TEMP_FOLDER) continue;
      const path = join(this.namespaceFolder, entry.name);
      if (entry.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link');
      const streamId = idOfFolderName(entry.name);
      if (streamId === null || !entry.isDirectory()) {
        throw corruptStream(entry.name, `${path} is not a stream folder (namespace ${this.config.namespace}).`);
      }
      streamIds.push(streamId);
    }
    streamIds.sort();
    for (const streamId of streamIds) {
      const head = await this.headOf(streamId);
      if (head > 0) yield { streamId, head };
    }
  }

  /**
   * Change hints for `followStream`: a watch of the stream's folder (of the namespace folder
   * until the stream folder exists). They end when `signal` aborts or this instance closes.
   * Where the platform cannot watch, no hint comes and followers poll.
   */
  changes(streamId: string, signal: AbortSignal): AsyncIterable<void> {
    this.assertOpen();
    assertStreamId(streamId);
    const folder = this.stateOf(streamId).folder;
    return changeHints(AbortSignal.any([signal, this.closing.signal]), (notify) => watchStreamFolder(folder, notify));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await Promise.all([...this.streamStates.values()].map((state) => state.idle()));
  }

  private assertOpen(): void {
    if (this.closed) throw closedError();
  }

  private stateOf(streamId: string): StreamState {
    let state = this.streamStates.get(streamId);
    if (state === undefined) {
      state = new StreamState(streamId, join(this.namespaceFolder, folderNameOf(streamId)));
      this.streamStates.set(streamId, state);
    }
    return state;
  }

  /**
   * Checks the folders every operation goes through, the storage directory first: each must
   * still be a real directory. Swapped for a symlink (even to a copy), it is refused rather than
   * followed, as a fresh instance would refuse it.
   */
  private async checkNamespaceFolder(): Promise<void> {
    if (!(await directoryExists(this.identity.location))) throw unsafePath(this.identity.location, 'the storage directory has disappeared');
    if (!(await directoryExists(this.namespaceFolder))) throw unsafePath(this.namespaceFolder, 'the namespace folder has disappeared');
  }

  private async catchUp(state: StreamState): Promise<void> {
    await this.checkNamespaceFolder();
    await state.catchUp();
  }

  /**
   * Commits a batch atomically: the whole file is written and fsynced under a temp name, then
   * hard-linked to its final name. `link` fails with EEXIST when another writer (any process)
   * committed that revision first, which makes it the cross-process exclusion; no lock file
   * exists that a crash could leave behind. Returns false when the race was lost.
   */
  private async commit(state: StreamState, prepared: PreparedAppend): Promise<boolean> {
    if (!(await directoryExists(this.tempFolder))) throw unsafePath(this.tempFolder, 'the temp folder has disappeared');
    const bytes = encodeBatchFile(state.streamId, prepared.expectedRevision + 1, prepared.texts);
    const tempPath = await writeTempFile(this.tempFolder, bytes);
    try {
      if (!state.folderExists) await ensureDirectory(state.folder);
      try {
        await link(tempPath, join(state.folder, batchFileName(prepared.expectedRevision + 1)));
      } catch (error) {
        if (errorCode(error) === 'EEXIST') return false;
        throw error;
      }
      state.addCommitted(prepared);
      await fsyncDirectory(state.folder);
      return true;
    } finally {
      await unlink(tempPath).catch(() => undefined);
    }
  }
}

/**
 * A `RunStorage` over a directory: `<directory>/<namespace>/<stream>/<first revision>.batch`,
 * one immutable, checksummed file per committed batch. Creates the directory tree (mode 0700)
 * if missing and refuses symlinked paths with UNSAFE_STORAGE_PATH. Several instances and
 * processes may share one directory.
 */
export function createFsStorage(options: FsStorageOptions): RunStorage {
  if (typeof options !== 'object' || options === null) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', 'createFsStorage needs an options object with a directory.');
  }
  const config = resolveStorageOptions(options);
  if (typeof options.directory !== 'string' || options.directory.length === 0 || options.directory.includes('\0')) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', 'directory must be a non-empty path.');
  }
  const directory = resolve(options.directory);
  try {
    const location = prepareStorageDirectorySync(directory);
    const namespaceFolder = join(location, folderNameOf(config.namespace));
    ensureDirectorySync(namespaceFolder);
    const tempFolder = join(namespaceFolder, TEMP_FOLDER);
    ensureDirectorySync(tempFolder);
    removeStaleTempFilesSync(tempFolder);
    return new FsRunStorage(config, location, namespaceFolder, tempFolder);
  } catch (error) {
    throw storagePathError(directory, error);
  }
}
