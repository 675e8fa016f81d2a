import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresCatalog, postgresServer } from '@roundtable/test-utils';
import type { PostgresServer, TestDatabase } from '@roundtable/test-utils';
import { rawPostgresClient } from '@roundtable/test-utils/harness';
import { assertBuilt, roundtable, startCancellableRecord, startRoundtable, startServedRecord, writeRecord } from './__fixtures__/helpers.js';

// A real PostgreSQL: ROUNDTABLE_POSTGRES_URL when set, otherwise an embedded server for this file.
let server: PostgresServer;
let database: TestDatabase;

beforeAll(async () => {
  assertBuilt();
  server = await postgresServer();
  database = await createTestDatabase(server.url, 'roundtable_cli');
  await writeRecord('postgres', database.url, 'seed-run', 'seed');
  await writeRecord('postgres', database.url, 'live-run', 'paused');
}, 180_000);

afterAll(async () => {
  await database?.drop();
  await server?.stop();
});

describe('roundtable over postgres://', () => {
  it('lists, shows and verifies runs kept in PostgreSQL', async () => {
    const runs = await roundtable(['runs', '--store', database.url]);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toMatch(/^seed-run\s+release-team\s+complete\s+3\s/m);
    expect(runs.stdout).toMatch(/^live-run\s+release-team\s+paused needs approval\s+2\s/m);
    const show = await roundtable(['show', 'seed-run', '--store', database.url]);
    expect(show.stdout.split('\n').filter((line) => line.startsWith('team/'))).toHaveLength(3);
    const verify = await roundtable(['verify', '--all', '--store', database.url, '-o', 'json']);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout).ok).toBe(true);
  });

  it('answer lets a serve() process in another process go on (NOTIFY hints), and cancel stops an attempt running in another process', async () => {
    const served = await startServedRecord('postgres', database.url, 'served-run');
    let pausedAt = 0;
    while (pausedAt === 0) {
      const show = await roundtable(['show', 'served-run', '-o', 'json', '--store', database.url]);
      pausedAt = (JSON.parse(show.stdout) as { openPauses: { pausedAt: number }[] }).openPauses[0]?.pausedAt ?? 0;
    }
    const answered = await roundtable(['answer', 'served-run', 'team/reviewer/1', '--approve', '--paused-at', String(pausedAt), '--store', database.url]);
    expect([answered.code, answered.stderr]).toEqual([0, '']);
    const ended = await served.ended;
    expect(ended.stdout).toContain(JSON.stringify({ kind: 'complete', given: [{ approved: true }] }));

    const running = await startCancellableRecord('postgres', database.url, 'running-run');
    const cancelled = await roundtable(['cancel', 'running-run', '--reason', 'stop it', '--store', database.url]);
    expect([cancelled.code, cancelled.stderr]).toEqual([0, '']);
    const stopped = await running.ended;
    expect(stopped.stdout).toContain('{"kind":"cancelled"}');
    const show = await roundtable(['show', 'running-run', '-o', 'json', '--store', database.url]);
    expect(JSON.parse(show.stdout)).toMatchObject({ status: { kind: 'cancelled', reason: 'stop it' } });
    expect(show.stdout).toContain('CANCELLED');
  });

  it('tail -f prints a turn another process appends (NOTIFY hints), and stops on SIGINT', async () => {
    const tail = startRoundtable(['tail', 'live-run', '-f', '--store', database.url]);
    await tail.waitFor((out) => out.includes('Please review the draft.'), 'the first line');
    await writeRecord('postgres', database.url, 'live-run', 'resume');
    await tail.waitFor((out) => out.includes('Approved: ship it.'), 'the reviewer line');
    expect(await tail.interrupt()).toBe(0);
  });

  it('answers NOT_A_STORE for a database without Roundtable\'s schema, and creates no schema or table in it', async () => {
    const foreign = await createTestDatabase(server.url, 'roundtable_cli_foreign');
    try {
      const client = await rawPostgresClient(foreign.url);
      await client.query('CREATE TABLE public.accounts (id int); INSERT INTO public.accounts VALUES (1)');
      await client.end();
      const before = await postgresCatalog(foreign.url);
      for (const args of [['runs'], ['show', 'seed-run'], ['events', 'seed-run', '-f'], ['verify', '--all']]) {
        const result = await roundtable([...args, '--store', foreign.url]);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr).toMatch(/^roundtable: NOT_A_STORE: postgres:\/\/.*\?schema=roundtable is not a Roundtable store: the database has no schema "roundtable" \(it has the schemas "public"\)/);
      }
      expect(await postgresCatalog(foreign.url)).toEqual(before);
    } finally {
      await foreign.drop();
    }
  });

  it('reports an unreachable server as a typed error with exit 2, without the password', async () => {
    const url = new URL(database.url);
    url.port = '1';
    const result = await roundtable(['runs', '--store', url.toString()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^roundtable: [A-Z_]+: /);
    if (url.password !== '') expect(result.stderr).not.toContain(url.password);
  });
});
