import type { NewEvent } from '@roundtable/storage';
import { duplicateEventId, prepareAppend, resolveAgainstHead } from '@roundtable/storage/adapter';
import type { PreparedAppend } from '@roundtable/storage/adapter';
import { assertOpen, errorContext } from './sqliteContext.js';
import type { SqliteContext } from './sqliteContext.js';
import { sqliteCode, withSqliteErrors } from './sqliteErrors.js';
import { bodyChecksum, storedHead } from './sqliteStatements.js';
import { HEAD_MOVED } from './writeBatch.js';

/** The length of a batch's stored texts (about its bytes, for pacing checkpoints). */
function textChars(prepared: PreparedAppend): number {
  let chars = 0;
  for (const text of prepared.texts) chars += text.length;
  return chars;
}

function committedTexts(context: SqliteContext, streamId: string, from: number, to: number): string[] {
  // A damaged body simply differs from the batch, so the retry is refused as a conflict.
  return context.statements.bodies.all({ namespace: context.namespace, streamId, from, to }).map((body) => (typeof body === 'string' ? body : ''));
}

function tryWrite(context: SqliteContext, prepared: PreparedAppend, checksums: readonly string[]): number | typeof HEAD_MOVED {
  try {
    return context.writeBatch.immediate(prepared, checksums);
  } catch (error) {
    // The transaction rolled back. An id already in the stream is DUPLICATE_EVENT_ID; any other
    // constraint failure means the rows disagree with the head (damage, reported as such).
    if (sqliteCode(error) === 'SQLITE_CONSTRAINT_UNIQUE') {
      const { streamId } = prepared;
      const { namespace } = context;
      const duplicate = prepared.eventIds.find((eventId) => context.statements.eventRevision.get({ namespace, streamId, eventId }) !== undefined);
      if (duplicate !== undefined) throw duplicateEventId(duplicate, streamId);
    }
    throw error;
  }
}

/** `RunStorage.append` of the SQLite adapter. */
export async function appendToStream(context: SqliteContext, streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
  assertOpen(context);
  const prepared = prepareAppend(context.config, streamId, expectedRevision, events);
  const checksums = prepared.texts.map(bodyChecksum);
  const errors = errorContext(context, streamId);
  // Optimistic: one transaction that writes when the head is at expectedRevision. Only when it
  // was elsewhere, apply the port's rule (a byte-identical retry of a committed batch, or
  // REVISION_CONFLICT); the rule reads outside the transaction (better-sqlite3 transactions
  // cannot await), and heads only grow, so a "write" from it ends the next pass.
  for (;;) {
    const written = withSqliteErrors(errors, () => tryWrite(context, prepared, checksums));
    if (written !== HEAD_MOVED) {
      context.checkpointer?.committed(textChars(prepared));
      return written;
    }
    const head = withSqliteErrors(errors, () => storedHead(context.statements, context.namespace, streamId));
    const decision = await resolveAgainstHead(prepared, head, (from, to) => withSqliteErrors(errors, () => committedTexts(context, streamId, from, to)));
    if (decision !== 'write') return decision;
    assertOpen(context);
  }
}
