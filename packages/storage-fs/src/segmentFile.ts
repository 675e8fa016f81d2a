import { corruptStream } from '@roundtable/storage/adapter';
import { MAX_HEADER_BYTES, checkBatch, parseCount, revisionDigits, revisionOfName } from './batchFile.js';
import type { CheckedBatch } from './batchFile.js';
import { readFileSync } from './safeFs.js';
import { sha256Hex } from './sha256Hex.js';

/** The on-disk format of a segment file; bump on any incompatible change. */
export const SEGMENT_FORMAT_VERSION = 1;

const MAGIC = 'roundtable-fs-segment';
const SEGMENT_FILE_NAME = /^(\d{16})\.segment$/;
const HEADER = /^roundtable-fs-segment version=(\d+) stream=(\S+) first=(\d+) last=(\d+) batches=(\d+) bytes=(\d+) sha256=([0-9a-f]{64})$/;

/** What a segment's header line says: the revisions it holds and how many batches. */
export interface SegmentInfo {
  readonly first: number;
  readonly last: number;
  readonly batches: number;
  /** Bytes of the whole segment file. */
  readonly size: number;
}

/** `0000000000000001.segment`: a segment is named by its first revision, like a batch file. */
export function segmentFileName(firstRevision: number): string {
  return `${revisionDigits(firstRevision)}.segment`;
}

/** The first revision a segment file name stands for, or null when it is not one. */
export function firstRevisionOfSegmentFile(name: string): number | null {
  return revisionOfName(SEGMENT_FILE_NAME, name);
}

/**
 * The bytes of a segment file: one ASCII header line
 * `roundtable-fs-segment version=1 stream=<id> first=<rev> last=<rev> batches=<n> bytes=<body bytes> sha256=<hex of body>`
 * then the body: the batch files it packs, byte for byte, one after the other.
 */
export function encodeSegmentFile(streamId: string, first: number, last: number, batchFiles: readonly Buffer[]): Buffer {
  const body = Buffer.concat(batchFiles);
  const header =
    `${MAGIC} version=${SEGMENT_FORMAT_VERSION} stream=${streamId} first=${first} last=${last} batches=${batchFiles.length} ` +
    `bytes=${body.length} sha256=${sha256Hex(body)}\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), body]);
}

interface ParsedHeader extends SegmentInfo {
  readonly bodyStart: number;
  readonly bodyBytes: number;
  readonly checksum: string;
}

function parseHeader(bytes: Buffer, streamId: string, first: number, size: number): ParsedHeader {
  const name = segmentFileName(first);
  const damaged = (problem: string) => corruptStream(streamId, `segment file ${name} ${problem}.`);
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || newline > MAX_HEADER_BYTES) throw damaged('has no segment header');
  const header = HEADER.exec(bytes.toString('latin1', 0, newline));
  if (header === null) throw damaged('has no valid segment header');
  const [, version, headerStream, headerFirst, headerLast, headerBatches, headerBytes, checksum = ''] = header;
  if (version !== String(SEGMENT_FORMAT_VERSION)) throw damaged(`has unknown format version ${version}`);
  if (headerStream !== streamId) throw damaged(`belongs to stream ${headerStream}`);
  if (parseCount(headerFirst) !== first) throw damaged(`says it starts at revision ${headerFirst}`);
  const last = parseCount(headerLast);
  const batches = parseCount(headerBatches);
  const bodyBytes = parseCount(headerBytes);
  if (last === null || last < first || batches === null || batches > last - first + 1 || bodyBytes === null) throw damaged('has an invalid range, count or length');
  return { first, last, batches, size, bodyStart: newline + 1, bodyBytes, checksum };
}

/**
 * Reads a segment's header line only (what a listing needs); null when there is no such file.
 * `probe`: the file is probably not there (the segment after the last one known).
 */
export function readSegmentInfo(folder: string, streamId: string, first: number, probe = false): SegmentInfo | null {
  const name = segmentFileName(first);
  const start = readFileSync(folder, name, streamId, { limit: MAX_HEADER_BYTES + 1, probe });
  if (start === null) return null;
  const header = parseHeader(start, streamId, first, 0);
  return { first, last: header.last, batches: header.batches, size: header.bodyStart + header.bodyBytes };
}

/**
 * Reads a whole segment file and checks it against what its listing said (`info`): header,
 * length and checksum, then every batch in it back to back from `info.first` to `info.last`.
 * Returns the batches that hold revisions from `from` on. Anything off is CORRUPT_EVENT_STREAM.
 */
export function readSegmentFile(folder: string, streamId: string, info: SegmentInfo, from = info.first): CheckedBatch[] {
  const name = segmentFileName(info.first);
  const damaged = (problem: string) => corruptStream(streamId, `segment file ${name} ${problem}.`);
  const bytes = readFileSync(folder, name, streamId);
  if (bytes === null) throw damaged('is missing');
  const header = parseHeader(bytes, streamId, info.first, bytes.length);
  if (header.last !== info.last || header.batches !== info.batches) throw damaged('changed since it was listed');
  const bodyEnd = header.bodyStart + header.bodyBytes;
  if (bodyEnd !== bytes.length) throw damaged(`holds ${bytes.length - header.bodyStart} body bytes, its header says ${header.bodyBytes} (truncated or extended)`);
  if (sha256Hex(bytes.subarray(header.bodyStart)) !== header.checksum) throw damaged('does not match its checksum');

  const batches: CheckedBatch[] = [];
  let offset = header.bodyStart;
  let next = info.first;
  let count = 0;
  while (offset < bodyEnd) {
    const label = `segment file ${name}, batch at revision ${next},`;
    const { batch, end } = checkBatch(bytes, offset, bodyEnd, { streamId, first: next, label }, false);
    if (batch.first + batch.count - 1 >= from) batches.push(batch);
    next = batch.first + batch.count;
    offset = end;
    count++;
  }
  if (next - 1 !== info.last || count !== info.batches) throw damaged(`holds revisions ${info.first} to ${next - 1} in ${count} batches, its header says ${info.last} in ${info.batches}`);
  return batches;
}
