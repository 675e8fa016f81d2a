// PostgreSQL workloads of `pnpm bench`: ping-pong and its replay on @roundtable/storage-postgres,
// with the server's own commit rate beside them. Each job starts a PostgreSQL of its own (or
// uses ROUNDTABLE_POSTGRES_URL) in a fresh database.
import pg from 'pg';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDispatchInput, TeamTurnResult } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { createTestDatabase, postgresServer } from '@roundtable/test-utils';
import { pingPongTeam } from './pingPongTeam.js';

const POST = 'x'.repeat(90);

export interface PostgresPingPongReport {
  turns: number;
  usPerTurn: number;
  turnsPerSecond: number;
  events: number;
  /** Transactions the server committed during the run, per turn and per second. */
  serverCommits: { perTurn: number; perSecond: number };
  replay: { ms: number; eventsPerSecond: number; appended: number };
  /** What the same server does alone: single-row autocommit inserts, one connection, one after another. */
  serverCommitRate: { commitsPerSecond: number; usPerCommit: number };
}

async function committedTransactions(client: pg.Client, database: string): Promise<number> {
  // The statistics collector publishes per backend at transaction end; ask for a fresh snapshot.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ commits: string }>('SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = $1', [database]);
  return Number(rows[0]?.commits ?? 0);
}

/** Commits per second of the server for the smallest durable write, on one connection. */
async function serverCommitRate(url: string, commits: number): Promise<PostgresPingPongReport['serverCommitRate']> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE commit_rate (n bigint PRIMARY KEY, note text NOT NULL)');
    const started = performance.now();
    for (let n = 0; n < commits; n++) await client.query('INSERT INTO commit_rate (n, note) VALUES ($1, $2)', [n, POST]);
    const ms = performance.now() - started;
    return { commitsPerSecond: (commits / ms) * 1000, usPerCommit: (ms * 1000) / commits };
  } finally {
    await client.end();
  }
}

/** Two members alternating on PostgreSQL, then a replay by a fresh instance, then the server's own commit rate. */
export async function benchPostgresPingPong(turns: number): Promise<PostgresPingPongReport> {
  const server = await postgresServer();
  try {
    const database = await createTestDatabase(server.url, 'bench');
    try {
      const graph = compileGraph(teamGraphType, pingPongTeam(turns));
      const member =
        (self: string, other: string) =>
        (ctx: { input: unknown; position: string }): TeamTurnResult => {
          const turn = Number(ctx.position.split('/').at(-1));
          const last = (ctx.input as TeamDispatchInput).messages.at(-1);
          if (self === 'pong' && turn * 2 >= turns) return { summary: `done after ${last?.id ?? 'nothing'}` };
          return { summary: `turn ${turn}`, posts: [{ roomId: 'table', text: `${self} ${turn} ${POST}`, mentions: [other] }] };
        };
      const nodes = { ping: member('ping', 'pong'), pong: member('pong', 'ping') };
      const stats = new pg.Client({ connectionString: database.url });
      await stats.connect();
      const storage = createPostgresStorage({ connectionString: database.url });
      await storage.ready();
      const commitsBefore = await committedTransactions(stats, database.name);
      const started = performance.now();
      const result = await (await createGraphExecutor({ runId: 'bench', graph, storage, nodes })).run();
      const ms = performance.now() - started;
      const commits = (await committedTransactions(stats, database.name)) - commitsBefore;
      await stats.end();
      if (result.kind !== 'complete') throw new Error(`The workload ended with ${JSON.stringify(result).slice(0, 300)}`);
      const events = await storage.head('bench');
      await storage.close();

      const reopened = createPostgresStorage({ connectionString: database.url });
      const replayStarted = performance.now();
      const replayed = await (await createGraphExecutor({ runId: 'bench', graph, storage: reopened, nodes })).run();
      const replayMs = performance.now() - replayStarted;
      if (JSON.stringify(replayed) !== JSON.stringify(result)) throw new Error('The replay returned a different result.');
      const appended = (await reopened.head('bench')) - events;
      await reopened.close();

      const measuredTurns = Math.round((events - 1) / 3);
      return {
        turns: measuredTurns,
        usPerTurn: (ms * 1000) / measuredTurns,
        turnsPerSecond: (measuredTurns / ms) * 1000,
        events,
        serverCommits: { perTurn: commits / measuredTurns, perSecond: (commits / ms) * 1000 },
        replay: { ms: replayMs, eventsPerSecond: (events / replayMs) * 1000, appended },
        serverCommitRate: await serverCommitRate(database.url, 2000),
      };
    } finally {
      await database.drop();
    }
  } finally {
    await server.stop();
  }
}
