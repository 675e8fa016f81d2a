import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { answerPause, createGraphExecutor, isGraphExecutionError } from '@roundtable/scheduler';
import { createTestDatabase, postgresServer, readAll, seedTeam } from '@roundtable/test-utils';
import type { PostgresServer, TestDatabase } from '@roundtable/test-utils';
import { openFaultStorage } from './faultStorage.js';
import { FULL, countKill, faultCounts, reportFaults } from './faultReport.js';

// SPEC 20's serve under SIGKILL: a process holding a run with `executor.serve()` is killed at a
// random moment (before, during or after its attempts, while it waits at the pause, while the
// answer's re-run runs); an operator answers the pause whenever the record shows it open; a
// new holder resumes what the killed one left started and serves on. Every round: the run
// completes with the uninterrupted result, the record folds, each position is dispatched and
// completed exactly once, the pause is answered exactly once, and no attempt (position and
// attempt number) ran to its end twice (side file). 200 kills per adapter in the long form.

const ROUNDS = FULL ? 200 : 6;
const WORKER = fileURLToPath(new URL('../__fixtures__/serveWorker.mjs', import.meta.url));
const graph = compileGraph(teamGraphType, seedTeam());

let scratch: string;
let server: PostgresServer;
let database: TestDatabase;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'roundtable-serve-kills-'));
  server = await postgresServer();
  database = await createTestDatabase(server.url, 'serve_kills');
});
afterAll(async () => {
  await database.drop();
  await server.stop();
  await rm(scratch, { recursive: true, force: true });
  reportFaults('serve kills');
});

function holder(kind: string, path: string, runId: string, sides: string) {
  const child = spawn(process.execPath, [WORKER, kind, path, runId, sides], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, ended, stdout: () => stdout };
}

/** Answers the open approval pause if the record shows one; an answer that lost a race or found nothing to answer writes nothing. */
async function answerIfPaused(kind: string, path: string, runId: string): Promise<boolean> {
  const storage = await openFaultStorage(kind, path);
  try {
    await answerPause({ storage, runId, position: 'team/reviewer/1', value: { approved: true } });
    return true;
  } catch (error) {
    if (isGraphExecutionError(error, 'PROTOCOL') || isGraphExecutionError(error, 'STALE_ANSWER') || isGraphExecutionError(error, 'RUN_NOT_FOUND')) return false;
    throw error;
  } finally {
    await storage.close();
  }
}

describe.each(['fs', 'sqlite', 'postgres'] as const)('SIGKILL of a serve() process on %s', (kind) => {
  it(`loses and doubles nothing over ${ROUNDS} kills: the run completes as uninterrupted, the pause answered once`, async () => {
    const path = kind === 'postgres' ? database.url : join(scratch, kind === 'fs' ? 'record' : 'record.sqlite');
    const reference = await (
      await createGraphExecutor({
        runId: 'reference',
        graph,
        storage: (await import('@roundtable/storage-memory')).createMemoryStorage(),
        nodes: {
          writer: ({ input }) => ((input as { result: unknown }).result === null ? { summary: 'Draft ready.', posts: [{ roomId: 'review', text: 'Please review the draft.', mentions: ['reviewer'] }] } : { summary: 'Final notes.' }),
          reviewer: () => ({ summary: 'Reviewed.', posts: [{ roomId: 'review', text: 'Approved: ship it.', mentions: ['writer'] }] }),
        },
      })
    ).run();
    for (let round = 0; round < ROUNDS; round++) {
      const runId = `served-${round}`;
      const sides = join(scratch, `${kind}-${runId}.sides`);
      // The first holder dies at a random moment: 0–120 ms covers start-up, attempts and the wait.
      const first = holder(kind, path, runId, sides);
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 120)));
      first.child.kill('SIGKILL');
      expect((await first.ended).signal ?? 'exited').toMatch(/SIGKILL|exited/);
      countKill(kind);
      // The operator answers if the pause is open now; else after the next holder reaches it.
      let answered = await answerIfPaused(kind, path, runId);
      const second = holder(kind, path, runId, sides);
      while (!answered) {
        if (second.child.exitCode !== null) break;
        answered = await answerIfPaused(kind, path, runId);
        if (!answered) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const ended = await second.ended;
      expect(ended.code, second.stdout()).toBe(0);
      expect(second.stdout()).toContain('{"kind":"complete"}');

      const storage = await openFaultStorage(kind, path);
      try {
        const refuse = () => {
          throw new Error('a finished run must not run a member');
        };
        expect(await (await createGraphExecutor({ runId, graph, storage, nodes: { writer: refuse, reviewer: refuse } })).run()).toEqual(reference);
        const events = await readAll(storage, runId);
        const count = (type: string) => {
          const counts = new Map<string, number>();
          for (const event of events) if (event.type === type) counts.set((event.payload as { position: string }).position, (counts.get((event.payload as { position: string }).position) ?? 0) + 1);
          return Object.fromEntries(counts);
        };
        expect(count('graph:node-dispatched')).toEqual({ 'team/writer/1': 1, 'team/reviewer/1': 1, 'team/writer/2': 1 });
        expect(count('graph:node-completed')).toEqual({ 'team/writer/1': 1, 'team/reviewer/1': 1, 'team/writer/2': 1 });
        expect(events.filter((event) => event.type === 'graph:node-resumed' && (event.payload as { value: unknown }).value !== null)).toHaveLength(1);
      } finally {
        await storage.close();
      }
      // A killed attempt is run again as the next attempt (retrySafe), never as the same one twice.
      const ends = (await readFile(sides, 'utf8').catch(() => '')).split('\n').filter((line) => line.startsWith('end ')).map((line) => line.slice(4));
      expect(new Set(ends).size).toBe(ends.length);
      faultCounts.recoveredRuns++;
    }
  });
});
