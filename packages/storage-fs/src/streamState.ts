import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { corruptStream } from '@roundtable/storage/adapter';
import type { StorageError, StoredEvent } from '@roundtable/storage';
import type { PreparedAppend } from '@roundtable/storage/adapter';
import { batchEvents, batchFileName, firstRevisionOfBatchFile, readBatchFile } from './batchFile.js';
import type { CheckedBatch } from './batchFile.js';
import { HEAD_MARKER, readHeadMarker } from './headMarker.js';
import { directoryExistsSync, unsafePath } from './safeFs.js';
import { firstRevisionOfSegmentFile, readSegmentFile, readSegmentInfo, segmentFileName } from './segmentFile.js';
import type { SegmentInfo } from './segmentFile.js';

/** What `walk` yields when a batch file it needs is gone. */
const PROBE = Symbol('probe');

/** One file of committed revisions `first` … `last`: a batch file, or a segment packing several. */
export type Chunk =
  | { readonly kind: 'batch'; readonly first: number; readonly last: number; readonly size: number }
  | ({ readonly kind: 'segment' } & SegmentInfo);

/**
 * What one storage instance knows about one stream: its head and the files that hold it, in
 * order (segments first, then the batch files not packed yet), plus the event ids of the
 * stream (for DUPLICATE_EVENT_ID), gathered lazily on the first append. It is built once, with
 * one listing of the stream folder, and then caught up by probing: for the batch file that
 * would come next (committed batches appear strictly in order, so a missing next file means
 * this is the head), then for the segment that would come next. Nothing here grows with the
 * stream's length per call. Work on one state is serialised by `exclusive`.
 */
export class StreamState {
  head = 0;
  /** Whether the stream folder existed at the last catch-up. */
  folderExists = false;
  private chunks: Chunk[] = [];
  /** The last revision held by segments: `chunks` holds segments up to it, then batch files. */
  private segmentEnd = 0;
  /** How many of `chunks` are batch files not packed yet, and their bytes: kept up as batches come in, recounted when a segment does. */
  private unpackedCount = 0;
  private unpackedBytes = 0;
  private readonly eventIds = new Set<string>();
  /** `eventIds` holds the ids of revisions 1 … `idsUpTo`. */
  private idsUpTo = 0;
  /** Batch files left behind, already packed, by a packer that was killed: removed at the next pack. */
  private leftovers: number[] = [];
  private listed = false;
  private tail: Promise<unknown> = Promise.resolve();
  /** Files being removed in the background, one at a time (see `removeInBackground`). */
  private removals: Promise<void> = Promise.resolve();

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

  /** Settles once every task queued so far has settled, and every background removal. */
  async idle(): Promise<void> {
    await this.tail;
    await this.removals;
  }

  /**
   * Removes files nothing reads any more (packed batch files, a linked segment's temp name) on
   * the thread pool, one at a time, without holding up the stream: a removal waits for the
   * filesystem's journal, which under load takes milliseconds, and one pack removes hundreds.
   * One at a time, so the pool stays free for the next append's fsyncs. A removal that never
   * happens (the process ends first) leaves a file readers skip and the next pack removes.
   */
  removeInBackground(paths: readonly string[]): void {
    this.removals = this.removals.then(async () => {
      for (const path of paths) await unlink(path).catch(() => undefined);
    });
  }

  private corrupt(problem: string): StorageError {
    return corruptStream(this.streamId, problem);
  }

  /** Brings the state up to the stream's current head. Call inside `exclusive`. */
  async catchUp(): Promise<void> {
    this.folderExists = directoryExistsSync(this.folder);
    if (!this.folderExists) {
      if (this.head > 0) throw this.corrupt('its folder has disappeared.');
      // Seen empty: from here on, every batch will be found by probing, in order.
      this.listed = true;
      return;
    }
    if (this.listed) this.probe();
    else await this.listFolder();
  }

  /**
   * Reads the batch files that follow the head, then looks for a segment that follows the last
   * one known, and repeats while either is found. The segment is looked for *after* the batch
   * files: a packer links a segment before it removes the batch files it packed, so a batch file
   * read here that a writer with a stale head linked over a packed revision (see `commit`) is
   * always followed by finding the segment that holds the real one, which then wins.
   */
  private probe(): void {
    let known = this.head;
    for (;;) {
      for (;;) {
        const batch = readBatchFile(this.folder, this.streamId, this.head + 1, true);
        if (batch === null) break;
        this.addBatch(batch.first, batch.count, batch.size);
      }
      const segment = readSegmentInfo(this.folder, this.streamId, this.segmentEnd + 1, true);
      if (segment === null) return;
      this.addSegment(segment, known);
      known = this.head;
    }
  }

  /**
   * Takes in a segment found by probing. Batch files read since `known` may hold revisions the
   * segment holds (copies, or a stale writer's): they are dropped and probed again after it.
   */
  private addSegment(segment: SegmentInfo, known: number): void {
    if (this.head > known) {
      this.chunks = this.chunks.filter((chunk) => chunk.last <= known);
      this.head = known;
    }
    const chunk: Chunk = { kind: 'segment', ...segment };
    const segments = this.chunks.filter((existing) => existing.last <= this.segmentEnd);
    if (segment.last >= this.head) {
      this.chunks = [...segments, chunk];
      this.head = segment.last;
    } else {
      const next = this.chunks.findIndex((existing) => existing.first === segment.last + 1);
      if (next < 0) throw this.corrupt(`segment file ${segmentFileName(segment.first)} ends at revision ${segment.last}, inside a batch.`);
      this.chunks = [...segments, chunk, ...this.chunks.slice(next)];
    }
    this.segmentEnd = segment.last;
    const unpacked = this.unpackedBatches();
    this.unpackedCount = unpacked.length;
    this.unpackedBytes = unpacked.reduce((sum, existing) => sum + existing.size, 0);
  }

  private addBatch(first: number, count: number, size: number): void {
    if (first !== this.head + 1) throw this.corrupt(`batch ${batchFileName(first)} does not follow revision ${this.head}.`);
    this.chunks.push({ kind: 'batch', first, last: first + count - 1, size });
    this.head = first + count - 1;
    this.unpackedCount++;
    this.unpackedBytes += size;
  }

  /** Records a batch this instance has just committed, without reading it back. */
  addCommitted(prepared: PreparedAppend, size: number): void {
    this.addBatch(prepared.expectedRevision + 1, prepared.events.length, size);
    if (this.idsUpTo === prepared.expectedRevision) {
      for (const eventId of prepared.eventIds) this.eventIds.add(eventId);
      this.idsUpTo = prepared.nextHead;
    }
  }

  /** The batch files not packed into a segment yet, oldest first. */
  unpackedBatches(): readonly Chunk[] {
    return this.chunks.filter((chunk) => chunk.first > this.segmentEnd);
  }

  /**
   * Whether more than `batches` batch files wait (or more than `bytes` in more than one file):
   * what `packSegment` needs to start, known without going through the chunks on every append.
   */
  packDue(batches: number, bytes: number): boolean {
    return this.unpackedCount > batches || (this.unpackedBytes > bytes && this.unpackedCount > 1);
  }

  /** Batch files to remove at the next pack: leftovers of a killed packer. */
  takeLeftovers(): number[] {
    return this.leftovers.splice(0);
  }

  /** Records a segment this instance has just packed from its oldest unpacked batch files. */
  addPacked(segment: SegmentInfo): void {
    if (segment.first !== this.segmentEnd + 1) throw this.corrupt(`segment ${segmentFileName(segment.first)} does not follow revision ${this.segmentEnd}.`);
    this.addSegment(segment, this.head);
  }

  /**
   * Whether a segment not known yet holds `revision`: then a batch file just linked for it is a
   * stale writer's (its batch file was packed and removed after the writer's last catch-up).
   */
  segmentHolds(revision: number): boolean {
    for (let first = this.segmentEnd + 1; first <= revision; ) {
      const segment = readSegmentInfo(this.folder, this.streamId, first, true);
      if (segment === null) return false;
      if (segment.last >= revision) return true;
      first = segment.last + 1;
    }
    return false;
  }

  /** Whether `eventId` is in the stream. Call `gatherEventIds` first. */
  hasEventId(eventId: string): boolean {
    return this.eventIds.has(eventId);
  }

  /**
   * Adds the event ids of a batch read back, when it is the next one not gathered yet: a read
   * from the start gathers them all, so a replay followed by appends reads the stream once. A
   * repeated id is damage.
   */
  gather(batch: CheckedBatch, events: readonly StoredEvent[]): void {
    if (batch.first !== this.idsUpTo + 1) return;
    for (let index = 0; index < events.length; index++) {
      const eventId = events[index]!.eventId;
      if (this.eventIds.has(eventId)) {
        // Leave the set as it was: take back this batch's ids before failing.
        for (const added of events.slice(0, index)) this.eventIds.delete(added.eventId);
        throw this.corrupt(`event id ${JSON.stringify(eventId)} is stored twice.`);
      }
      this.eventIds.add(eventId);
    }
    this.idsUpTo = batch.first + batch.count - 1;
  }

  /** Reads the event ids of every revision not gathered yet. Call inside `exclusive`. */
  gatherEventIds(): void {
    if (this.idsUpTo >= this.head) return;
    for (const batch of this.batchesLocked(this.idsUpTo + 1, this.head)) this.gather(batch, batchEvents(this.streamId, batch));
  }

  /** Index in `chunks` of the chunk holding `revision` (1 ≤ revision ≤ head). */
  private chunkAt(revision: number): Chunk {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.chunks[middle]!.first <= revision) low = middle;
      else high = middle - 1;
    }
    return this.chunks[low]!;
  }

  /**
   * The checked batches of the chunk holding `revision`, from the one holding it on; null when
   * that chunk is a batch file that is gone (a packer may have packed it meanwhile).
   */
  private load(revision: number): CheckedBatch[] | null {
    const chunk = this.chunkAt(revision);
    if (chunk.kind === 'segment') return readSegmentFile(this.folder, this.streamId, chunk, revision);
    const batch = readBatchFile(this.folder, this.streamId, chunk.first);
    if (batch === null) return null;
    if (batch.first + batch.count - 1 !== chunk.last) {
      throw this.corrupt(`batch file ${batchFileName(batch.first)} holds ${batch.count} events, expected ${chunk.last - chunk.first + 1}.`);
    }
    return [batch];
  }

  private missing(revision: number): StorageError {
    return this.corrupt(`batch file ${batchFileName(this.chunkAt(revision).first)} is missing.`);
  }

  /**
   * The committed batches holding revisions `from` … `to` (1 ≤ from ≤ to ≤ head), read from disk
   * file by file, so reads cost what they return and not the stream's length. When a batch file
   * is gone (a packer may have packed it meanwhile) it yields PROBE: its consumer probes for new
   * segments, and it looks again.
   */
  private *walk(from: number, to: number): Generator<CheckedBatch | typeof PROBE> {
    let position = from;
    while (position <= to) {
      let loaded = this.load(position);
      if (loaded === null) {
        yield PROBE;
        loaded = this.load(position);
        if (loaded === null) throw this.missing(position);
      }
      for (const batch of loaded) {
        if (batch.first > to) return;
        yield batch;
        position = batch.first + batch.count;
      }
    }
  }

  /** `walk` for reads, which run outside `exclusive`: a probe runs inside it. */
  async *batches(from: number, to: number): AsyncGenerator<CheckedBatch> {
    for (const item of this.walk(from, to)) {
      if (item === PROBE) await this.exclusive(() => Promise.resolve(this.probe()));
      else yield item;
    }
  }

  /** `walk` for callers already inside `exclusive`. */
  private *batchesLocked(from: number, to: number): Generator<CheckedBatch> {
    for (const item of this.walk(from, to)) {
      if (item === PROBE) this.probe();
      else yield item;
    }
  }

  /** The canonical texts of revisions `from` … `to`, for the byte-identical retry check. Call inside `exclusive`. */
  committedTexts(from: number, to: number): string[] {
    const texts: string[] = [];
    for (const batch of this.batchesLocked(from, to)) {
      batch.texts.forEach((text, index) => {
        const revision = batch.first + index;
        if (revision >= from && revision <= to) texts.push(text);
      });
    }
    return texts;
  }

  /**
   * The one full listing. Every entry must be a batch file, a segment file or the head marker;
   * segments must run from revision 1 with no gap, and the batch files from where they end.
   * Batch files already packed into a segment (a killed packer's leftovers) are skipped. A head
   * marker beyond the head means the newest batch files were deleted. Anything else is damage
   * (or, for a symlink, an unsafe path).
   */
  private async listFolder(): Promise<void> {
    // Start over: a listing that failed half-way must not leave half a state behind.
    this.head = 0;
    this.segmentEnd = 0;
    this.chunks = [];
    this.unpackedCount = 0;
    this.unpackedBytes = 0;
    this.eventIds.clear();
    this.idsUpTo = 0;
    this.leftovers = [];
    // The marker first: every revision it records was committed before the listing starts.
    const marker = readHeadMarker(this.folder, this.streamId);
    const entries = await readdir(this.folder, { withFileTypes: true });
    const batchFirsts: number[] = [];
    const segmentFirsts: number[] = [];
    for (const entry of entries) {
      if (entry.isSymbolicLink()) throw unsafePath(join(this.folder, entry.name), 'it is a symbolic link');
      const batchFirst = firstRevisionOfBatchFile(entry.name);
      const segmentFirst = firstRevisionOfSegmentFile(entry.name);
      if (entry.isFile() && batchFirst !== null) batchFirsts.push(batchFirst);
      else if (entry.isFile() && segmentFirst !== null) segmentFirsts.push(segmentFirst);
      else if (!(entry.isFile() && entry.name === HEAD_MARKER)) throw this.corrupt(`${JSON.stringify(entry.name)} in its folder is not a batch or segment file.`);
    }
    segmentFirsts.sort((a, b) => a - b);
    for (const first of segmentFirsts) {
      if (first !== this.segmentEnd + 1) {
        throw this.corrupt(first > this.segmentEnd + 1 ? `revisions ${this.segmentEnd + 1} to ${first - 1} are missing.` : `segment file ${segmentFileName(first)} overlaps revision ${this.segmentEnd}.`);
      }
      // Segments are never removed: one listed is there.
      const segment = readSegmentInfo(this.folder, this.streamId, first);
      if (segment === null) throw this.corrupt(`segment file ${segmentFileName(first)} is missing.`);
      this.addSegment(segment, this.head);
    }
    // The batch files by probing from there (which also finds segments packed meanwhile).
    this.probe();
    const starts = new Set(this.chunks.map((chunk) => chunk.first));
    batchFirsts.sort((a, b) => a - b);
    for (const first of batchFirsts) {
      if (first <= this.segmentEnd) this.leftovers.push(first);
      else if (first > this.head) throw this.corrupt(`revisions ${this.head + 1} to ${first - 1} are missing.`);
      else if (!starts.has(first)) throw this.corrupt(`batch file ${batchFileName(first)} overlaps another batch.`);
    }
    if (marker !== null) this.checkMarker(marker);
    this.listed = true;
  }

  /** The head marker must be a batch of this stream at or before the head, and match it. */
  private checkMarker(marker: CheckedBatch): void {
    const last = marker.first + marker.count - 1;
    if (last > this.head) {
      throw this.corrupt(`its head marker records revision ${last}, but revisions ${this.head + 1} to ${last} are missing (were the newest batch files deleted?).`);
    }
    const chunk = this.chunkAt(marker.first);
    if (chunk.kind === 'segment') return;
    const mismatch = () => this.corrupt(`its head marker does not match batch file ${batchFileName(marker.first)}.`);
    if (chunk.first !== marker.first || chunk.last !== last) throw mismatch();
    const batch = readBatchFile(this.folder, this.streamId, chunk.first);
    // Gone: another process packed it since the probe (a batch file deleted is caught by reads).
    if (batch !== null && batch.checksum !== marker.checksum) throw mismatch();
  }
}
