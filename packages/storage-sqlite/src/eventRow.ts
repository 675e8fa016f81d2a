import { createHash } from 'node:crypto';
import { corruptStream, isStorageError, readStoredEvent } from '@roundtable/storage';
import type { StoredEvent } from '@roundtable/storage';

/** One row of the `events` table as a read selects it. */
export interface EventRow {
  readonly revision: unknown;
  readonly event_id: unknown;
  readonly body: unknown;
  readonly checksum: unknown;
}

/** SHA-256 (hex) of the UTF-8 bytes of an event's stored text. */
export function bodyChecksum(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}

function parseBody(body: string, streamId: string, revision: number): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw corruptStream(streamId, `revision ${revision} is not JSON.`, error);
  }
}

/**
 * Turns a stored row back into the event it holds, or fails closed: the row must be at the
 * expected revision, its body must match its checksum, parse, be a valid stored event of this
 * stream at this revision and carry the row's event id. An unknown envelope version is
 * reported as UNSUPPORTED_ENVELOPE_VERSION; every other fault as CORRUPT_EVENT_STREAM.
 */
export function decodeEventRow(row: EventRow, streamId: string, revision: number): StoredEvent {
  if (row.revision !== revision) throw corruptStream(streamId, `revision ${revision} is missing (found ${String(row.revision)} next).`);
  if (typeof row.body !== 'string' || typeof row.checksum !== 'string') throw corruptStream(streamId, `revision ${revision} has a malformed row.`);
  if (bodyChecksum(row.body) !== row.checksum) throw corruptStream(streamId, `revision ${revision} does not match its checksum.`);
  const parsed = parseBody(row.body, streamId, revision);
  let event: StoredEvent;
  try {
    // One walk checks the event and freezes it in place: the fold reuses it as it is.
    event = readStoredEvent(parsed, { streamId, revision });
  } catch (error) {
    if (isStorageError(error, 'UNSUPPORTED_ENVELOPE_VERSION')) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw corruptStream(streamId, `revision ${revision} is not a valid stored event: ${reason}`, error);
  }
  if (event.eventId !== row.event_id) throw corruptStream(streamId, `revision ${revision} is indexed under another event id.`);
  return event;
}
