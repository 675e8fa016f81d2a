import { isStorageError } from '@roundtable/storage';
import { corruptStream, parseStoredEvent } from '@roundtable/storage/adapter';
import type { StoredEvent } from '@roundtable/storage';
import { readFileSync } from './safeFs.js';
import { sha256Hex } from './sha256Hex.js';

/** The on-disk format of one committed batch; bump on any incompatible change. */
export const BATCH_FORMAT_VERSION = 1;

const MAGIC = 'roundtable-fs-batch';
const REVISION_DIGITS = 16; // Number.MAX_SAFE_INTEGER has 16 digits
const BATCH_FILE_NAME = /^(\d{16})\.batch$/;
export const MAX_HEADER_BYTES = 512;
const HEADER = /^roundtable-fs-batch version=(\d+) stream=(\S+) first=(\d+) count=(\d+) bytes=(\d+) sha256=([0-9a-f]{64})$/;
const POSITIVE = /^[1-9]\d*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A batch read back from its bytes and checked: where it starts, how many events it holds, its
 * body's checksum and each event's canonical JSON (exactly as `prepareAppend` produced it).
 * Events are parsed only on demand (`batchEvents`): a listing needs the shape, not the events.
 */
export interface CheckedBatch {
  readonly first: number;
  readonly count: number;
  readonly checksum: string;
  /** Bytes of the whole batch file, header included. */
  readonly size: number;
  readonly texts: readonly string[];
}

/** `0000000000000001.batch`: the first revision, zero-padded so names sort by revision. */
export function batchFileName(firstRevision: number): string {
  return `${revisionDigits(firstRevision)}.batch`;
}

/** The first revision zero-padded to 16 digits, the stem of batch and segment file names. */
export function revisionDigits(revision: number): string {
  return String(revision).padStart(REVISION_DIGITS, '0');
}

/** The first revision a batch file name stands for, or null when it is not a batch file name. */
export function firstRevisionOfBatchFile(name: string): number | null {
  return revisionOfName(BATCH_FILE_NAME, name);
}

/** The revision in a `<16 digits><suffix>` name matched by `pattern`, or null. */
export function revisionOfName(pattern: RegExp, name: string): number | null {
  const digits = pattern.exec(name)?.[1];
  if (digits === undefined) return null;
  const first = Number(digits);
  return first >= 1 && Number.isSafeInteger(first) ? first : null;
}

/** A positive safe integer written in decimal without leading zeros, or null. */
export function parseCount(text: string | undefined): number | null {
  if (text === undefined || !POSITIVE.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/**
 * The bytes of a batch file: one ASCII header line
 * `roundtable-fs-batch version=1 stream=<id> first=<rev> count=<n> bytes=<body bytes> sha256=<hex of body>`
 * then the body: each event's canonical JSON on its own line (canonical JSON has no raw newline).
 */
export function encodeBatchFile(streamId: string, firstRevision: number, texts: readonly string[]): Buffer {
  // One buffer, the body encoded once after room for the header (its length is only known once
  // the body's checksum is), the header then written just before it.
  const bodyText = `${texts.join('\n')}\n`;
  const bodyBytes = Buffer.byteLength(bodyText, 'utf8');
  const file = Buffer.allocUnsafe(MAX_HEADER_BYTES + bodyBytes);
  file.write(bodyText, MAX_HEADER_BYTES, 'utf8');
  const body = file.subarray(MAX_HEADER_BYTES);
  const header =
    `${MAGIC} version=${BATCH_FORMAT_VERSION} stream=${streamId} first=${firstRevision} count=${texts.length} ` +
    `bytes=${bodyBytes} sha256=${sha256Hex(body)}\n`;
  // The header is ASCII (a stream id is), so its length in characters is its length in bytes.
  const start = MAX_HEADER_BYTES - header.length;
  file.write(header, start, 'latin1');
  return file.subarray(start);
}

/** Where a batch was found, for its checks and its error messages. */
export interface BatchPlace {
  readonly streamId: string;
  /** The first revision the batch must start at; null to take it from the header (the head marker). */
  readonly first: number | null;
  /** How to name the batch in an error message. */
  readonly label: string;
}

/**
 * Checks one batch at `start` of `bytes` (a batch file is one; a segment holds several back to
 * back) and returns it with where it ends. Anything off — a truncated, extended, altered or
 * foreign batch, a header that does not match its place — is CORRUPT_EVENT_STREAM.
 * `verifyChecksum` is false only inside a segment, whose own checksum covers every batch in it.
 */
export function checkBatch(bytes: Buffer, start: number, end: number, place: BatchPlace, verifyChecksum: boolean): { batch: CheckedBatch; end: number } {
  const damaged = (problem: string, cause?: unknown) => corruptStream(place.streamId, `${place.label} ${problem}.`, cause);
  const newline = bytes.indexOf(0x0a, start);
  if (newline < 0 || newline >= end || newline - start > MAX_HEADER_BYTES) throw damaged('has no batch header');
  const header = HEADER.exec(bytes.toString('latin1', start, newline));
  if (header === null) throw damaged('has no valid batch header');
  const [, version, headerStream, headerFirst, headerCount, headerBytes, checksum = ''] = header;
  if (version !== String(BATCH_FORMAT_VERSION)) throw damaged(`has unknown format version ${version}`);
  if (headerStream !== place.streamId) throw damaged(`belongs to stream ${headerStream}`);
  const first = parseCount(headerFirst);
  if (first === null || (place.first !== null && first !== place.first)) throw damaged(`says it starts at revision ${headerFirst}`);
  const count = parseCount(headerCount);
  const bodyBytes = parseCount(headerBytes);
  if (count === null || bodyBytes === null || !Number.isSafeInteger(first + count - 1)) throw damaged('has an invalid count or length');

  const bodyStart = newline + 1;
  const bodyEnd = bodyStart + bodyBytes;
  if (bodyEnd > end) throw damaged(`holds ${end - bodyStart} body bytes, its header says ${bodyBytes} (truncated)`);
  const body = bytes.subarray(bodyStart, bodyEnd);
  if (verifyChecksum && sha256Hex(body) !== checksum) throw damaged('does not match its checksum');

  let text: string;
  try {
    text = utf8.decode(body);
  } catch (error) {
    throw damaged('is not valid UTF-8', error);
  }
  if (!text.endsWith('\n')) throw damaged('does not end with a newline');
  const texts = text.slice(0, -1).split('\n');
  if (texts.length !== count) throw damaged(`holds ${texts.length} events, its header says ${count}`);
  return { batch: { first, count, checksum, size: bodyEnd - start, texts }, end: bodyEnd };
}

/** Checks the bytes of a whole batch file; bytes after the batch are damage (an extended file). */
export function checkBatchFile(bytes: Buffer, place: BatchPlace): CheckedBatch {
  const { batch, end } = checkBatch(bytes, 0, bytes.length, place, true);
  if (end !== bytes.length) throw corruptStream(place.streamId, `${place.label} holds ${bytes.length - end} bytes more than its header says (extended).`);
  return batch;
}

/**
 * The batch's events, each checked as a valid stored event at its revision and frozen in place
 * (the fold reuses it as it is). An invalid event is CORRUPT_EVENT_STREAM;
 * UNSUPPORTED_ENVELOPE_VERSION passes through.
 */
export function batchEvents(streamId: string, batch: CheckedBatch, label = batchFileName(batch.first)): StoredEvent[] {
  return batch.texts.map((line, index): StoredEvent => {
    const revision = batch.first + index;
    try {
      return parseStoredEvent(line, { streamId, revision });
    } catch (error) {
      if (isStorageError(error, 'UNSUPPORTED_ENVELOPE_VERSION')) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw corruptStream(streamId, `${label} has an invalid event at revision ${revision}: ${reason}`, error);
    }
  });
}

/**
 * Reads and checks the batch file of `streamId` in `folder` that starts at `first`; null when
 * there is none. Batch files are small and already on disk, so they are read synchronously:
 * four thread-pool round trips per file cost several times more than the reads themselves.
 * `probe`: the file is probably not there (the one after the head).
 */
export function readBatchFile(folder: string, streamId: string, first: number, probe = false): CheckedBatch | null {
  const name = batchFileName(first);
  const bytes = readFileSync(folder, name, streamId, { probe });
  return bytes === null ? null : checkBatchFile(bytes, { streamId, first, label: `batch file ${name}` });
}
