import { hash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import pg from 'pg';
import { StorageError, assertRevision, assertStreamId, isStreamId } from '@roundtable/storage';
import { corruptStream, decodeStoredEventRow, prepareAppend, resolveAgainstHead } from '@roundtable/storage/adapter';
import type { NewEvent, ReadOptions, RunStorage, StorageIdentity, StoredEvent } from '@roundtable/storage';
import type { PreparedAppend } from '@roundtable/storage/adapter';
import packageJson from '../package.json' with { type: 'json' };
import { ChangeListener } from './changeListener.js';
import { migrate, quoteIdentifier, requireStoreSchema } from './migrations.js';
import { withPostgresErrors } from './postgresErrors.js';
import type { PostgresErrorContext } from './postgresErrors.js';
import { resolvePostgresStorageOptions } from './postgresStorageOptions.js';
import type { PostgresStorageOptions } from './postgresStorageOptions.js';
import { revisionFromText } from './revisionFromText.js';

const ADAPTER = '@roundtable/storage-postgres';
// Reads fetch this many rows per query: never a whole stream at once, never a query per event.
const PAGE_ROWS = 256;

/** One row of the `events` table as a read selects it (`revision` as text: it is a bigint). */
interface EventRow {
  readonly revision: unknown;
  readonly event_id: unknown;
  readonly body: unknown;
  readonly checksum: unknown;
}

/** SHA-256 (hex) of the UTF-8 bytes of an event's stored text: the `checksum` column. */
const bodyChecksum = (body: string): string => hash('sha256', body);

/** A `RunStorage` over PostgreSQL, with change hints by LISTEN/NOTIFY. */
export interface PostgresStorage extends RunStorage {
  /**
   * Connects and brings the schema up to date, if that has not happened yet (with `readOnly`,
   * checks it instead: NOT_A_STORE, UNSUPPORTED_SCHEMA_VERSION). Every method does this first,
   * so calling it is optional: it surfaces a bad connection string, a refused login, a newer
   * schema or (read-only) a database that holds no store before the first read or append.
   */
  ready(): Promise<void>;
  /** Yields once when listening starts (and after each reconnect), then whenever an append to `streamId` commits, until `signal` aborts. */
  changes(streamId: string, signal: AbortSignal): AsyncIterable<void>;
}

/** The NOTIFY channel of one schema: every storage over it announces its commits there. */
export function changeChannel(schema: string): string {
  return `roundtable_changes_${schema}`;
}

/** A statement PostgreSQL parses and plans once per connection, named after its text. */
interface Statement {
  readonly name: string;
  readonly text: string;
}

function named(texts: Record<string, string>): Record<string, Statement> {
  return Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, { name: `roundtable_${key}_${hash('sha256', text).slice(0, 16)}`, text }]));
}

function statements(schema: string) {
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
  }) as Record<'head' | 'page' | 'bodies' | 'createStream' | 'moveHead' | 'streams', Statement>;
}

/**
 * A `RunStorage` over one PostgreSQL schema. Any number of instances, in any number of
 * processes and machines, may share it: each append is one statement that moves the stream's
 * head only from `expectedRevision`. It returns at once; the first method call (or `ready()`)
 * connects and migrates. Throws a StorageError when the options are invalid. With `readOnly:
 * true` it creates and migrates nothing (the schema must already hold a store) and refuses every
 * append (STORAGE_READ_ONLY).
 */
export function createPostgresStorage(options: PostgresStorageOptions): PostgresStorage {
  const config = resolvePostgresStorageOptions(options);
  const { namespace, schema, location, lockTimeoutMs } = config;
  const sql = statements(schema);
  const channel = changeChannel(schema);
  const ownsPool = config.pool === null;
  // Our own connections wait at most lockTimeoutMs for a lock; a caller's pool keeps its
  // sessions' settings, so its appends set the timeout for their own transaction only.
  const ownConnection: pg.ClientConfig = { ...config.connection, options: `-c lock_timeout=${lockTimeoutMs}`, application_name: 'roundtable-storage' };
  // A read-only instance's own pool has the server refuse any write too, whatever the code does.
  const poolOptions = config.readOnly ? `${ownConnection.options} -c default_transaction_read_only=on` : ownConnection.options;
  const pool = config.pool ?? new pg.Pool({ ...ownConnection, options: poolOptions, max: config.maxConnections });
  // An idle connection the server drops emits 'error' on the pool; the next query reports it.
  if (ownsPool) pool.on('error', () => undefined);
  const listener = new ChangeListener(() => new pg.Client({ ...ownConnection, application_name: 'roundtable-listen' }), channel);
  const identity: StorageIdentity = Object.freeze({ adapter: ADAPTER, version: packageJson.version, namespace, location });
  let closed = false;
  let readiness: Promise<void> | null = null;

  const context = (streamId?: string, eventIds?: readonly string[]): PostgresErrorContext => ({ location, lockTimeoutMs, streamId, eventIds });

  function assertOpen(): void {
    if (closed) throw new StorageError('STORAGE_CLOSED', `The PostgreSQL storage ${location} (namespace ${namespace}) is closed.`);
  }

  function ready(): Promise<void> {
    assertOpen();
    readiness ??= withPostgresErrors(context(), async () => {
      const client = await pool.connect();
      let failure: unknown;
      try {
        if (config.readOnly) await requireStoreSchema(client, schema, location);
        else await migrate(client, schema, location, lockTimeoutMs);
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        client.release(failure instanceof Error && !('severity' in failure) ? failure : undefined);
      }
    }).catch((error: unknown) => {
      // A failed start is not remembered: the next call tries again (the server may be back).
      readiness = null;
      throw error;
    });
    return readiness;
  }

  async function query<Row extends pg.QueryResultRow>(errors: PostgresErrorContext, statement: Statement, values: unknown[]): Promise<Row[]> {
    await ready();
    assertOpen();
    return withPostgresErrors(errors, async () => (await pool.query<Row>({ ...statement, values })).rows);
  }

  /** Runs one write statement in a transaction of its own, waiting at most lockTimeoutMs for locks. */
  async function write<Row extends pg.QueryResultRow>(errors: PostgresErrorContext, statement: Statement, values: unknown[]): Promise<Row[]> {
    if (ownsPool) return query<Row>(errors, statement, values);
    await ready();
    assertOpen();
    return withPostgresErrors(errors, async () => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query(`BEGIN; SET LOCAL lock_timeout = ${lockTimeoutMs}`);
        const rows = (await client.query<Row>({ ...statement, values })).rows;
        await client.query('COMMIT');
        return rows;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))));
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }

  async function readHead(streamId: string): Promise<number> {
    const [row] = await query<{ head: unknown; last: unknown }>(context(streamId), sql.head, [namespace, streamId]);
    const head = row?.head === null ? 0 : revisionFromText(row?.head);
    const last = row?.last === null ? 0 : revisionFromText(row?.last);
    if (head === null || head !== last) {
      throw corruptStream(streamId, `its head is ${JSON.stringify(row?.head ?? null)} but its last stored revision is ${JSON.stringify(row?.last ?? null)}.`);
    }
    return head;
  }

  async function committedTexts(streamId: string, from: number, to: number): Promise<string[]> {
    const rows = await query<{ body: unknown }>(context(streamId), sql.bodies, [namespace, streamId, from, to]);
    // A damaged body simply differs from the batch, so the retry is refused as a conflict.
    return rows.map((row) => (typeof row.body === 'string' ? row.body : ''));
  }

  /** The append statement: the new head, or null when the head was not at expectedRevision. */
  async function writeBatch(prepared: PreparedAppend): Promise<number | null> {
    const { streamId, expectedRevision } = prepared;
    const values = [
      namespace,
      streamId,
      prepared.nextHead,
      expectedRevision,
      prepared.eventIds,
      prepared.texts,
      prepared.texts.map(bodyChecksum),
      channel,
      `${namespace}\n${streamId}`,
    ];
    const rows = await write<{ inserted: number }>(context(streamId, prepared.eventIds), expectedRevision === 0 ? sql.createStream : sql.moveHead, values);
    if (rows.length === 0) return null;
    if (rows[0]!.inserted !== prepared.texts.length) throw corruptStream(streamId, `an append inserted ${rows[0]!.inserted} of ${prepared.texts.length} events.`);
    return prepared.nextHead;
  }

  async function append(streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
    assertOpen();
    const prepared = prepareAppend(config, streamId, expectedRevision, events);
    // Optimistic: write first. Only when the head was elsewhere, apply the port's rule (a
    // byte-identical retry of a committed batch, or REVISION_CONFLICT). Heads only grow, so
    // "write" from the rule (the head reached expectedRevision meanwhile) ends the next pass.
    for (;;) {
      const written = await writeBatch(prepared);
      if (written !== null) return written;
      const head = await readHead(streamId);
      const decision = await resolveAgainstHead(prepared, head, (from, to) => committedTexts(streamId, from, to));
      if (decision !== 'write') return decision;
    }
  }

  async function* read(streamId: string, readOptions: ReadOptions = {}): AsyncGenerator<StoredEvent> {
    assertOpen();
    assertStreamId(streamId);
    const after = readOptions.after ?? 0;
    assertRevision(after, 'after');
    const head = await readHead(streamId);
    const page = (from: number) => {
      const rows = query<EventRow & pg.QueryResultRow>(context(streamId), sql.page, [namespace, streamId, from, head]);
      // Awaited below, or dropped when the reader stops early: never an unhandled rejection.
      rows.catch(() => undefined);
      return rows;
    };
    let next = after + 1;
    let pending = next <= head ? page(after) : null;
    while (pending !== null) {
      const rows = await pending;
      assertOpen();
      if (rows.length === 0) throw corruptStream(streamId, `revisions ${next} to ${head} are missing.`);
      // Ask for the next page now, so the server's round trip overlaps decoding and consuming this one.
      const last = next - 1 + rows.length;
      pending = last < head ? page(last) : null;
      for (const row of rows) {
        yield decodeStoredEventRow({ revision: revisionFromText(row.revision), eventId: row.event_id, body: row.body, checksum: row.checksum }, streamId, next, bodyChecksum);
        next++;
      }
      // Between pages, let timers and I/O run even when the consumer is synchronous.
      await nextTurn();
    }
  }

  async function* streams(): AsyncGenerator<{ streamId: string; head: number }> {
    assertOpen();
    let after = '';
    for (;;) {
      const rows = await query<{ stream_id: unknown; head: unknown }>(context(), sql.streams, [namespace, after]);
      for (const row of rows) {
        const streamId = String(row.stream_id);
        const head = revisionFromText(row.head);
        if (!isStreamId(row.stream_id) || head === null || head === 0) throw corruptStream(streamId, 'its entry in the streams table is malformed.');
        yield { streamId, head };
        after = streamId;
      }
      if (rows.length < PAGE_ROWS) return;
    }
  }

  async function* changes(streamId: string, signal: AbortSignal): AsyncGenerator<void> {
    assertOpen();
    assertStreamId(streamId);
    if (signal.aborted) return;
    yield* listener.subscribe(`${namespace}\n${streamId}`, signal);
  }

  return {
    identity,
    ready,
    head: async (streamId) => {
      assertOpen();
      assertStreamId(streamId);
      return readHead(streamId);
    },
    read,
    append,
    streams,
    changes,
    close: async () => {
      if (closed) return;
      closed = true;
      await listener.close();
      if (ownsPool) await pool.end();
    },
  };
}
