import { STREAM_ID_PATTERN, isIdentifier, isWellFormedString, utf8ByteLength } from '@roundtable/core';
import { StorageError } from './errors.js';
import { recentlyAccepted } from './recentlyAccepted.js';

const STREAM_ID = STREAM_ID_PATTERN;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAX_ID_BYTES = 256;

export function invalid(message: string, details: Record<string, unknown> = {}): StorageError {
  return new StorageError('INVALID_STORED_VALUE', message, { details });
}

const isStreamIdText = recentlyAccepted(1, (value) => STREAM_ID.test(value));

/** True when `value` is a stream id: `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`. */
export function isStreamId(value: unknown): value is string {
  return isStreamIdText(value);
}

export function assertStreamId(value: unknown): asserts value is string {
  if (!isStreamId(value)) throw invalid(`Stream id ${JSON.stringify(value)} must match ${STREAM_ID.source}.`, { field: 'streamId' });
}

/** A revision as `append` takes it: a non-negative safe integer (0 is the empty stream). */
export function assertRevision(value: unknown, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(`${field} must be a non-negative safe integer, got ${String(value)}.`, { field });
  }
}

/**
 * An identifier of at most 256 UTF-8 bytes that is well-formed Unicode. A lone surrogate has
 * no UTF-8 form: a backend that stores text as UTF-8 (SQLite, PostgreSQL) would write U+FFFD
 * instead and could never return the value faithfully, so every adapter refuses it at append,
 * through this one check, rather than each deciding for itself. Eight remembered: a run's type,
 * correlation id and recent causation ids.
 */
export const isEventIdentifier = recentlyAccepted(
  8,
  // A UTF-16 code unit is at most 3 UTF-8 bytes, so an id of at most 85 units needs no count.
  (value) => isIdentifier(value) && isWellFormedString(value) && (value.length * 3 <= MAX_ID_BYTES || utf8ByteLength(value) <= MAX_ID_BYTES),
);

const digits = (text: string, from: number, to: number) => Number(text.slice(from, to));

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` naming a real UTC time (what `toISOString` writes), checked without a Date. */
export const isTimestamp = recentlyAccepted(1, (value) => {
  if (!TIMESTAMP.test(value)) return false;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 7);
  const day = digits(value, 8, 10);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days && digits(value, 11, 13) < 24 && digits(value, 14, 16) < 60 && digits(value, 17, 19) < 60;
});
