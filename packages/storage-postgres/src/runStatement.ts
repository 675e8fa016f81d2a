import type pg from 'pg';
import { assertOpen, ready } from './postgresContext.js';
import type { PostgresContext } from './postgresContext.js';
import { withPostgresErrors } from './postgresErrors.js';
import type { PostgresErrorContext } from './postgresErrors.js';
import type { Statement } from './postgresStatements.js';

/** Runs one statement on the pool, once the storage is ready; its rows. */
export async function query<Row extends pg.QueryResultRow>(context: PostgresContext, errors: PostgresErrorContext, statement: Statement, values: unknown[]): Promise<Row[]> {
  await ready(context);
  assertOpen(context);
  return withPostgresErrors(errors, async () => (await context.pool.query<Row>({ ...statement, values })).rows);
}

/** Runs one write statement in a transaction of its own, waiting at most lockTimeoutMs for locks. */
export async function write<Row extends pg.QueryResultRow>(context: PostgresContext, errors: PostgresErrorContext, statement: Statement, values: unknown[]): Promise<Row[]> {
  if (context.ownsPool) return query<Row>(context, errors, statement, values);
  await ready(context);
  assertOpen(context);
  return withPostgresErrors(errors, async () => {
    const client = await context.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(`BEGIN; SET LOCAL lock_timeout = ${context.config.lockTimeoutMs}`);
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
