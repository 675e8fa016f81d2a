import { createHash } from 'node:crypto';
import { corruptStream, isStorageError, readStoredEvent } from '@roundtable/storage';
import type { StoredEvent } from '@roundtable/storage';

/** The on-disk format of one committed batch; bump on any incompatible change. */
export const BATCH_FORMAT_VERSION = 1;

const MAGIC = 'roundtable-fs-batch';
const REVISION_DIGITS = 16; // Number.MAX_SAFE_INTEGER has 16 digits
const BATCH_FILE_NAME = /^(\d{16})\.batch$/;
const MAX_HEADER_BYTES = 512;
const HEADER = /^roundtable-fs-batch version=(\d+) stream=(\S+) first=(\d+) count=(\d+) bytes=(\d+) sha256=([0-9a-f]{64})$/;
const POSITIVE = /^[1-9]\d*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A batch read back from its file and checked. */
export interface DecodedBatch {
  readonly first: number;
  readonly count: number;
  /** Each event's canonical JSON, exactly as `prepareAppend` produced it. */
  readonly texts: readonly string[];
  readonly events: readonly StoredEvent[];
}

/** `0000000000000001.batch`: the first revision, zero-padded so names sort by revision. */
export function batchFileName(firstRevision: number): string {
  return `${String(firstRevision).padStart(REVISION_DIGITS, '0')}.batch`;
}

/** The first revision a batch file name stands for, or null when it is not a batch file name. */
export function firstRevisionOfBatchFile(name: string): number | null {
  const digits = BATCH_FILE_NAME.exec(name)?.[1];
  if (digits === undefined) return null;
  const first = Number(digits);
  return first >= 1 && Number.isSafeInteger(first) ? first : null;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The bytes of a batch file: one ASCII header line
 * `roundtable-fs-batch version=1 stream=<id> first=<rev> count=<n> bytes=<body bytes> sha256=<hex of body>`
 * then the body: each event's canonical JSON on its own line (canonical JSON has no raw newline).
 */
export function encodeBatchFile(streamId: string, firstRevision: number, texts: readonly string[]): Buffer {
  const body = Buffer.from(`${texts.join('\n')}\n`, 'utf8');
  const header =
    `${MAGIC} version=${BATCH_FORMAT_VERSION} stream=${streamId} first=${firstRevision} count=${texts.length} ` +
    `bytes=${body.length} sha256=${sha256Hex(body)}\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), body]);
}

function parseCount(text: string): number | null {
  if (!POSITIVE.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/**
 * Checks a batch file's bytes against where it was found (its stream and the first revision its
 * name claims) and returns its events. Anything off — a truncated, extended, altered or foreign
 * file, a header that does not match its name or stream, an event that is not a valid stored
 * event at its revision — is CORRUPT_EVENT_STREAM. UNSUPPORTED_ENVELOPE_VERSION passes through.
 */
export function decodeBatchFile(bytes: Buffer, streamId: string, firstRevision: number): DecodedBatch {
  const name = batchFileName(firstRevision);
  const damaged = (problem: string, cause?: unknown) => corruptStream(streamId, `batch file ${name} ${problem}.`, cause);

  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || newline > MAX_HEADER_BYTES) throw damaged('has no batch header');
  const header = HEADER.exec(bytes.toString('latin1', 0, newline));
  if (header === null) throw damaged('has no valid batch header');
  const [, version, headerStream, headerFirst, headerCount, headerBytes, checksum] = header as unknown as [string, ...string[]];
  if (version !== String(BATCH_FORMAT_VERSION)) throw damaged(`has unknown format version ${version}`);
  if (headerStream !== streamId) throw damaged(`belongs to stream ${headerStream}`);
  if (headerFirst !== String(firstRevision)) throw damaged(`says it starts at revision ${headerFirst}`);
  const count = parseCount(headerCount ?? '');
  const bodyBytes = parseCount(headerBytes ?? '');
  if (count === null || bodyBytes === null || !Number.isSafeInteger(firstRevision + count - 1)) throw damaged('has an invalid count or length');

  const body = bytes.subarray(newline + 1);
  if (body.length !== bodyBytes) throw damaged(`holds ${body.length} body bytes, its header says ${bodyBytes} (truncated or extended)`);
  if (sha256Hex(body) !== checksum) throw damaged('does not match its checksum');

  let text: string;
  try {
    text = utf8.decode(body);
  } catch (error) {
    throw damaged('is not valid UTF-8', error);
  }
  if (!text.endsWith('\n')) throw damaged('does not end with a newline');
  const texts = text.slice(0, -1).split('\n');
  if (texts.length !== count) throw damaged(`holds ${texts.length} events, its header says ${count}`);

  const events = texts.map((line, index): StoredEvent => {
    const revision = firstRevision + index;
    try {
      // One walk checks the event and freezes it in place: the fold reuses it as it is.
      return readStoredEvent(JSON.parse(line), { streamId, revision });
    } catch (error) {
      if (isStorageError(error, 'UNSUPPORTED_ENVELOPE_VERSION')) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw damaged(`has an invalid event at revision ${revision}: ${reason}`, error);
    }
  });
  return { first: firstRevision, count, texts, events };
}
