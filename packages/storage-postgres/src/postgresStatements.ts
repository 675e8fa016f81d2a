import { hash } from 'node:crypto';
import { quoteIdentifier } from './migrations.js';

// Reads fetch this many rows per query: never a whole stream at once, never a query per event.
export const PAGE_ROWS = 256;

/** SHA-256 (hex) of the UTF-8 bytes of an event's stored text: the `checksum` column. */
export const bodyChecksum = (body: string): string => hash('sha256', body);

/** A statement PostgreSQL parses and plans once per connection, named after its text. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** The statements of one schema, by what they do. */
export type PostgresStatements = Record<'head' | 'page' | 'bodies' | 'createStream' | 'moveHead' | 'streams', Statement>;

function named(texts: Record<string, string>): Record<string, Statement> {
  return Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, { name: `roundtable_${key}_${hash('sha256', text).slice(0, 16)}`, text }]));
}

export function postgresStatements(schema: string): PostgresStatements {
  const s = quoteIdentifier(schema);
  // The batch's rows, numbered from expectedRevision + 1, inserted only if the head moved.
  const insertBatch = `
    inserted AS (
      INSERT INTO ${s}.events (namespace, stream_id, revision, event_id, body, checksum)
      SELECT $1, $2, $4::bigint + batch.ordinality, batch.event_id, batch.body, batch.checksum
      FROM unnest($5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS batch(event_id, body, checksum)
      WHERE EXISTS (SELECT 1 FROM moved)
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM inserted)::int AS inserted, pg_notify($8, $9) IS NULL AS notified FROM moved`;
  return named({
    head: `SELECT (SELECT head::text FROM ${s}.streams WHERE namespace = $1 AND stream_id = $2) AS head,
                  (SELECT max(revision)::text FROM ${s}.events WHERE namespace = $1 AND stream_id = $2) AS last`,
    page: `SELECT revision::text AS revision, event_id, body, checksum FROM ${s}.events
           WHERE namespace = $1 AND stream_id = $2 AND revision > $3 AND revision <= $4
           ORDER BY events.revision LIMIT ${PAGE_ROWS}`,
    bodies: `SELECT body FROM ${s}.events WHERE namespace = $1 AND stream_id = $2 AND revision BETWEEN $3 AND $4 ORDER BY revision`,
    // One statement is one transaction: the conditional head update, the batch insert and the
    // NOTIFY (delivered on commit only) all happen or none does.
    createStream: `WITH moved AS (
        INSERT INTO ${s}.streams (namespace, stream_id, head) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING head
      ), ${insertBatch}`,
    moveHead: `WITH moved AS (
        UPDATE ${s}.streams SET head = $3 WHERE namespace = $1 AND stream_id = $2 AND head = $4 RETURNING head
      ), ${insertBatch}`,
    streams: `SELECT stream_id, head::text AS head FROM ${s}.streams WHERE namespace = $1 AND stream_id > $2
              ORDER BY stream_id LIMIT ${PAGE_ROWS}`,
  }) as PostgresStatements;
}
