import { closeSync, fstatSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { corruptStream } from '@roundtable/storage';
import type { PreparedAppend } from '@roundtable/storage';
import { batchFileName, decodeBatchFile, firstRevisionOfBatchFile } from './batchFile.js';
import type { DecodedBatch } from './batchFile.js';
import { directoryExists, openFileForReadingSync, unsafePath } from './safeFs.js';

/** Far above any batch the limits allow; a bigger file is not ours, and is not read into memory. */
const MAX_BATCH_FILE_BYTES = 1024 * 1024 * 1024;

/**
 * Reads and checks the batch file that starts at `first`; null when there is none. Batch files
 * are small and already on disk, so they are read synchronously: four thread-pool round trips
 * per file (open, stat, read, close) cost several times more than the reads themselves, and a
 * replay reads one file per append. The event loop is held for one small file at a time.
 */
export function readBatchFile(folder: string, streamId: string, first: number): DecodedBatch | null {
  const path = join(folder, batchFileName(first));
  const fd = openFileForReadingSync(path);
  if (fd === null) return null;
  let bytes: Buffer;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw corruptStream(streamId, `${batchFileName(first)} is not a regular file.`);
    if (stats.size > MAX_BATCH_FILE_BYTES) throw corruptStream(streamId, `${batchFileName(first)} is too large to be a batch file.`);
    // Committed batch files never change, so one read of the size fstat gave is the whole file;
    // if it is not (the file was tampered with meanwhile), the checksum check catches it.
    bytes = Buffer.allocUnsafe(stats.size);
    const bytesRead = readSync(fd, bytes, 0, stats.size, 0);
    bytes = bytes.subarray(0, bytesRead);
  } finally {
    closeSync(fd);
  }
  return decodeBatchFile(bytes, streamId, first);
}

/**
 * Reads the batch files starting at each of `firsts`, in order. A missing file is damage here:
 * these batches are known.
 */
function* readBatchFiles(folder: string, streamId: string, firsts: readonly number[]): Generator<DecodedBatch> {
  for (const first of firsts) {
    const batch = readBatchFile(folder, streamId, first);
    if (batch === null) throw corruptStream(streamId, `batch file ${batchFileName(first)} is missing.`);
    yield batch;
  }
}

/**
 * What one storage instance knows about one stream: its head, every event id in it (for
 * DUPLICATE_EVENT_ID) and where each batch starts (to find the batch holding a revision without
 * scanning). It is built once, with one listing of the stream folder, and then caught up by
 * probing for the batch file that would come next: committed batches appear strictly in order,
 * so a missing next file means this is the head. Nothing here grows with the stream's length
 * per call. Work on one state is serialised by `exclusive` so catch-ups never interleave.
 */
export class StreamState {
  head = 0;
  /** Whether the stream folder existed at the last catch-up. */
  folderExists = false;
  private readonly eventIds = new Set<string>();
  private readonly batchStarts: number[] = [];
  private listed = false;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly streamId: string,
    readonly folder: string,
  ) {}

  /** Runs `task` after every task queued before it has settled. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Settles once every task queued so far has settled. */
  idle(): Promise<unknown> {
    return this.tail;
  }

  hasEventId(eventId: string): boolean {
    return this.eventIds.has(eventId);
  }

  /** Brings the state up to the stream's current head. Call inside `exclusive`. */
  async catchUp(): Promise<void> {
    this.folderExists = await directoryExists(this.folder);
    if (!this.folderExists) {
      if (this.head > 0) throw corruptStream(this.streamId, 'its folder has disappeared.');
      // Seen empty: from here on, every batch will be found by probing, in order.
      this.listed = true;
      return;
    }
    if (!this.listed) await this.listFolder();
    for (;;) {
      const batch = readBatchFile(this.folder, this.streamId, this.head + 1);
      if (batch === null) return;
      this.addBatch(batch.first, batch.count, batch.events.map((event) => event.eventId));
    }
  }

  /** Records a batch this instance has just committed, without reading it back. */
  addCommitted(prepared: PreparedAppend): void {
    this.addBatch(prepared.expectedRevision + 1, prepared.events.length, prepared.eventIds);
  }

  /** Index in `batchStarts` of the batch holding `revision` (1 ≤ revision ≤ head). */
  private batchIndexOf(revision: number): number {
    let low = 0;
    let high = this.batchStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.batchStarts[middle]! <= revision) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /**
   * The committed batches holding revisions `from` … `to` (1 ≤ from ≤ to ≤ head), read from disk
   * one by one, so reads cost what they return and not the stream's length.
   */
  *batches(from: number, to: number): Generator<DecodedBatch> {
    const start = this.batchIndexOf(from);
    let end = start;
    while (end < this.batchStarts.length && this.batchStarts[end]! <= to) end++;
    // The head when the read began: later batches of the stream are not part of it.
    const head = this.head;
    const firsts = this.batchStarts.slice(start, end);
    let index = start;
    for (const batch of readBatchFiles(this.folder, this.streamId, firsts)) {
      const last = index + 1 < this.batchStarts.length ? this.batchStarts[index + 1]! - 1 : head;
      if (batch.first + batch.count - 1 !== last) {
        throw corruptStream(this.streamId, `batch file ${batchFileName(batch.first)} holds ${batch.count} events, expected ${last - batch.first + 1}.`);
      }
      index++;
      yield batch;
    }
  }

  /** The canonical texts of revisions `from` … `to`, for the byte-identical retry check. */
  committedTexts(from: number, to: number): string[] {
    const texts: string[] = [];
    for (const batch of this.batches(from, to)) {
      batch.texts.forEach((text, index) => {
        const revision = batch.first + index;
        if (revision >= from && revision <= to) texts.push(text);
      });
    }
    return texts;
  }

  private addBatch(first: number, count: number, eventIds: readonly string[]): void {
    if (first !== this.head + 1) throw corruptStream(this.streamId, `batch ${batchFileName(first)} does not follow revision ${this.head}.`);
    const added: string[] = [];
    for (const eventId of eventIds) {
      if (this.eventIds.has(eventId)) {
        // Leave the state as it was: take back this batch's ids before failing.
        for (const id of added) this.eventIds.delete(id);
        throw corruptStream(this.streamId, `event id ${JSON.stringify(eventId)} is stored twice.`);
      }
      this.eventIds.add(eventId);
      added.push(eventId);
    }
    this.batchStarts.push(first);
    this.head = first + count - 1;
  }

  /**
   * The one full listing: every entry must be a batch file, and the batches must run from
   * revision 1 with no gap. Anything else is damage (or, for a symlink, an unsafe path).
   */
  private async listFolder(): Promise<void> {
    // Start over: a listing that failed half-way must not leave half a state behind.
    this.head = 0;
    this.eventIds.clear();
    this.batchStarts.length = 0;
    const entries = await readdir(this.folder, { withFileTypes: true });
    const firsts: number[] = [];
    for (const entry of entries) {
      if (entry.isSymbolicLink()) throw unsafePath(join(this.folder, entry.name), 'it is a symbolic link');
      const first = firstRevisionOfBatchFile(entry.name);
      if (first === null || !entry.isFile()) throw corruptStream(this.streamId, `${JSON.stringify(entry.name)} in its folder is not a batch file.`);
      firsts.push(first);
    }
    firsts.sort((a, b) => a - b);
    for (const batch of readBatchFiles(this.folder, this.streamId, firsts)) {
      const first = batch.first;
      if (first > this.head + 1) throw corruptStream(this.streamId, `revisions ${this.head + 1} to ${first - 1} are missing.`);
      if (first <= this.head) throw corruptStream(this.streamId, `batch file ${batchFileName(first)} overlaps revision ${this.head}.`);
      this.addBatch(first, batch.count, batch.events.map((event) => event.eventId));
    }
    this.listed = true;
  }
}
