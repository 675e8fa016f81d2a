import { parseFrozenJson } from '@roundtable/core';
import { corruptStream, isStorageError } from './errors.js';
import type { StoredEvent } from './events.js';
import { readStoredEvent } from './validation.js';

/**
 * One stored event as a table-backed adapter (SQLite, PostgreSQL) keeps it: its canonical JSON
 * `body` exactly as `prepareAppend` gave it, a `checksum` of that text, and the revision and
 * event id the row is indexed under. Values are `unknown`: they come from disk.
 */
export interface StoredEventRow {
  /** The row's revision as a number, or null when the stored value is not one. */
  readonly revision: number | null;
  readonly eventId: unknown;
  readonly body: unknown;
  readonly checksum: unknown;
}

function parseBody(body: string, streamId: string, revision: number): unknown {
  try {
    return parseFrozenJson(body);
  } catch (error) {
    throw corruptStream(streamId, `revision ${revision} is not JSON.`, error);
  }
}

/**
 * Turns a stored row back into the event it holds, or fails closed: the row must be at the
 * expected revision, its body must match its checksum (`checksumOf` computes one the way the
 * adapter wrote it), parse, be a valid stored event of this stream at this revision and carry
 * the row's event id. One walk checks the event and deep-freezes it in place, so the fold
 * reuses it as it is. An unknown envelope version is UNSUPPORTED_ENVELOPE_VERSION; every other
 * fault CORRUPT_EVENT_STREAM.
 */
export function decodeStoredEventRow(row: StoredEventRow, streamId: string, revision: number, checksumOf: (body: string) => string): StoredEvent {
  if (row.revision !== revision) throw corruptStream(streamId, `revision ${revision} is missing (found ${String(row.revision)} next).`);
  if (typeof row.body !== 'string' || typeof row.checksum !== 'string') throw corruptStream(streamId, `revision ${revision} has a malformed row.`);
  if (checksumOf(row.body) !== row.checksum) throw corruptStream(streamId, `revision ${revision} does not match its checksum.`);
  const parsed = parseBody(row.body, streamId, revision);
  let event: StoredEvent;
  try {
    event = readStoredEvent(parsed, { streamId, revision });
  } catch (error) {
    if (isStorageError(error, 'UNSUPPORTED_ENVELOPE_VERSION')) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw corruptStream(streamId, `revision ${revision} is not a valid stored event: ${reason}`, error);
  }
  if (event.eventId !== row.eventId) throw corruptStream(streamId, `revision ${revision} is indexed under another event id.`);
  return event;
}
