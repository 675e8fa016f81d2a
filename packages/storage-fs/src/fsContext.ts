import { join, resolve } from 'node:path';
import { StorageError } from '@roundtable/storage';
import type { StorageIdentity, StorageOptions } from '@roundtable/storage';
import { resolveStorageOptions } from '@roundtable/storage/adapter';
import type { StorageConfig } from '@roundtable/storage/adapter';
import packageJson from '../package.json' with { type: 'json' };
import { existingStoreDirectorySync } from './existingStoreDirectory.js';
import { TEMP_FOLDER, folderNameOf } from './folderName.js';
import { directoryExistsSync, ensureDirectorySync, prepareStorageDirectorySync, storagePathError, unsafePath } from './safeFs.js';
import { StreamState } from './streamState.js';
import { removeStaleTempFilesSync } from './tempFiles.js';

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
const MAX_SEGMENT_BATCHES = 1_000_000;

/** What every operation of one fs storage instance shares. */
export interface FsContext {
  readonly config: StorageConfig;
  readonly segmentBatches: number;
  /** The storage directory, resolved: `identity.location`. */
  readonly location: string;
  readonly namespaceFolder: string;
  readonly tempFolder: string;
  readonly identity: StorageIdentity;
  /** What this instance knows of each stream it touched. */
  readonly streamStates: Map<string, StreamState>;
  /** Aborted by `close()`: ends every change-hint iterable of the instance. */
  readonly closing: AbortController;
  closed: boolean;
}

function segmentBatchesOf(options: FsStorageOptions): number {
  const value = options.segmentBatches ?? DEFAULT_SEGMENT_BATCHES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_SEGMENT_BATCHES) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', `segmentBatches must be an integer from 1 to ${MAX_SEGMENT_BATCHES}.`);
  }
  return value;
}

/**
 * Checks the options (INVALID_STORAGE_OPTIONS) and the directory tree, creating what is missing
 * (mode 0700) unless `readOnly` (then the directory must already be a store: NOT_A_STORE), and
 * removes temp files a crashed writer left behind.
 */
export function openFsContext(options: FsStorageOptions): FsContext {
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
  return { config, segmentBatches, location, namespaceFolder, tempFolder, identity, streamStates: new Map(), closing: new AbortController(), closed: false };
}

/** `RunStorage.close` of the fs adapter: later calls reject; appends already accepted complete first. */
export async function closeFsContext(context: FsContext): Promise<void> {
  context.closed = true;
  context.closing.abort();
  await Promise.all([...context.streamStates.values()].map((state) => state.idle()));
}

export function assertOpen(context: FsContext): void {
  if (context.closed) throw new StorageError('STORAGE_CLOSED', 'This storage instance is closed.');
}

/** The instance's state of a stream, made on first use. */
export function stateOf(context: FsContext, streamId: string): StreamState {
  let state = context.streamStates.get(streamId);
  if (state === undefined) {
    state = new StreamState(streamId, join(context.namespaceFolder, folderNameOf(streamId)));
    context.streamStates.set(streamId, state);
  }
  return state;
}

/**
 * Checks the folders every operation goes through, the storage directory first: each must
 * still be a real directory. Swapped for a symlink (even to a copy), it is refused rather than
 * followed, as a fresh instance would refuse it. Returns whether the namespace folder exists:
 * only a read-only instance can find it missing (a namespace nobody wrote to yet).
 */
export function checkNamespaceFolder(context: FsContext): boolean {
  if (!directoryExistsSync(context.location)) throw unsafePath(context.location, 'the storage directory has disappeared');
  if (directoryExistsSync(context.namespaceFolder)) return true;
  if (context.config.readOnly) return false;
  throw unsafePath(context.namespaceFolder, 'the namespace folder has disappeared');
}

/** Brings the instance's state of a stream up to what is on disk (call it under `state.exclusive`). */
export async function catchUp(context: FsContext, state: StreamState): Promise<void> {
  checkNamespaceFolder(context);
  await state.catchUp();
}
