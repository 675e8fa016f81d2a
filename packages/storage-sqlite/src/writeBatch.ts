import type BetterSqlite3 from 'better-sqlite3';
import type { PreparedAppend } from '@roundtable/storage/adapter';
import { storedHead } from './sqliteStatements.js';
import type { SqliteStatements } from './sqliteStatements.js';

/** What the write transaction returns when another writer moved the head after `append` decided. */
export const HEAD_MOVED = Symbol('head moved');

/** The write transaction of an append: run it with `.immediate(prepared, checksums)`. */
export type BatchWriter = BetterSqlite3.Transaction<(prepared: PreparedAppend, checksums: readonly string[]) => number | typeof HEAD_MOVED>;

/**
 * Under BEGIN IMMEDIATE: write the batch if the head is still `expectedRevision`. A repeated
 * event id is left to the table's UNIQUE constraint (no lookup per event on the hot path).
 */
export function createBatchWriter(db: BetterSqlite3.Database, statements: SqliteStatements, namespace: string): BatchWriter {
  return db.transaction((prepared: PreparedAppend, checksums: readonly string[]): number | typeof HEAD_MOVED => {
    const { streamId, expectedRevision } = prepared;
    if (storedHead(statements, namespace, streamId) !== expectedRevision) return HEAD_MOVED;
    const { texts, eventIds } = prepared;
    for (let index = 0; index < texts.length; index++) {
      statements.insert.run(namespace, streamId, expectedRevision + index + 1, eventIds[index]!, texts[index]!, checksums[index]!);
    }
    statements.setHead.run(namespace, streamId, prepared.nextHead);
    return prepared.nextHead;
  });
}
