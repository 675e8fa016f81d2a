import type { NewEvent } from '@roundtable/storage';
import { corruptStream, prepareAppend, resolveAgainstHead } from '@roundtable/storage/adapter';
import type { PreparedAppend } from '@roundtable/storage/adapter';
import { assertOpen, errorContext } from './postgresContext.js';
import type { PostgresContext } from './postgresContext.js';
import { bodyChecksum } from './postgresStatements.js';
import { storedHead } from './readHead.js';
import { query, write } from './runStatement.js';

async function committedTexts(context: PostgresContext, streamId: string, from: number, to: number): Promise<string[]> {
  const rows = await query<{ body: unknown }>(context, errorContext(context, streamId), context.sql.bodies, [context.namespace, streamId, from, to]);
  // A damaged body simply differs from the batch, so the retry is refused as a conflict.
  return rows.map((row) => (typeof row.body === 'string' ? row.body : ''));
}

/** The append statement: the new head, or null when the head was not at expectedRevision. */
async function writeBatch(context: PostgresContext, prepared: PreparedAppend): Promise<number | null> {
  const { streamId, expectedRevision } = prepared;
  const { namespace, sql } = context;
  const values = [
    namespace,
    streamId,
    prepared.nextHead,
    expectedRevision,
    prepared.eventIds,
    prepared.texts,
    prepared.texts.map(bodyChecksum),
    context.channel,
    `${namespace}\n${streamId}`,
  ];
  const rows = await write<{ inserted: number }>(context, errorContext(context, streamId, prepared.eventIds), expectedRevision === 0 ? sql.createStream : sql.moveHead, values);
  if (rows.length === 0) return null;
  if (rows[0]!.inserted !== prepared.texts.length) throw corruptStream(streamId, `an append inserted ${rows[0]!.inserted} of ${prepared.texts.length} events.`);
  return prepared.nextHead;
}

/** `RunStorage.append` of the PostgreSQL adapter. */
export async function appendToStream(context: PostgresContext, streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
  assertOpen(context);
  const prepared = prepareAppend(context.config, streamId, expectedRevision, events);
  // Optimistic: write first. Only when the head was elsewhere, apply the port's rule (a
  // byte-identical retry of a committed batch, or REVISION_CONFLICT). Heads only grow, so
  // "write" from the rule (the head reached expectedRevision meanwhile) ends the next pass.
  for (;;) {
    const written = await writeBatch(context, prepared);
    if (written !== null) return written;
    const head = await storedHead(context, streamId);
    const decision = await resolveAgainstHead(prepared, head, (from, to) => committedTexts(context, streamId, from, to));
    if (decision !== 'write') return decision;
  }
}
