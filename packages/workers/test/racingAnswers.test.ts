import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { createRunClient } from '../src/index.js';
import { approvalTeamGraph } from './__fixtures__/approvalTeam.mjs';
import { FULL, attemptCounts, childProcessDatabase, forkFixture, nextMessage } from './__fixtures__/helpers.js';

// Two processes call resumeRun for one pause at the same moment (issue 22, SPEC 20): the answer
// is the client's own append at the expected revision, written only while the position is
// paused, so exactly one call writes it and the other gets STALE_ANSWER having written nothing;
// a worker process then runs the answered position once (counted by its member's side file, one
// line per attempt, not by the record). 1,000 rounds in the long form (FAULT_SCALE=full).

const ROUNDS = FULL ? 1000 : 8;
const POSITION = 'team/shipper/1';
const { children, database } = childProcessDatabase('workers_answers');
const scratch = mkdtempSync(join(tmpdir(), 'roundtable-workers-answers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Reply = { outcome: string; revision?: number };
const isReply = (message: unknown): message is Reply => typeof message === 'object' && message !== null && 'outcome' in message;

it(`racing resumeRun calls write one answer and a worker runs one attempt per pause, over ${ROUNDS} rounds`, async () => {
  const sideFile = join(scratch, 'attempts');
  const pool = forkFixture('answerProcess.mjs', ['pool', database().url, sideFile]);
  const answerers = ['left', 'right'].map((name) => ({ name, child: forkFixture('answerProcess.mjs', ['answer', database().url, name]) }));
  children.push(pool, ...answerers.map((answerer) => answerer.child));
  await Promise.all([pool, ...answerers.map((answerer) => answerer.child)].map((child) => nextMessage(child, isReply)));
  const client = await createRunClient({ connectionString: database().url });
  const storage = createPostgresStorage({ connectionString: database().url });
  const graph = approvalTeamGraph();
  /** Polls runStatus until `kind` (the pool takes the run's jobs in its own process). */
  const reached = async (runId: string, kind: string) => {
    for (let status = await client.runStatus({ runId }); status.kind !== kind; status = await client.runStatus({ runId })) {
      expect(['waiting', 'pause', kind], runId).toContain(status.kind);
      // A second job for the answered position would find its attempt running and ask a person to reconcile it.
      expect(status.kind === 'pause' ? status.request : null, runId).not.toMatchObject({ kind: 'reconcile-attempt' });
      await sleep(20);
    }
  };
  const wins: Record<string, number> = { left: 0, right: 0 };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const runId = `answers-${round}`;
      await client.submitRun({ runId, graph });
      await reached(runId, 'pause');
      const head = await storage.head(runId);
      const order = round % 2 === 0 ? answerers : [...answerers].reverse();
      const replies = await Promise.all(
        order.map(({ child }) => {
          const reply = nextMessage(child, isReply);
          child.send({ runId, position: POSITION });
          return reply;
        }),
      );
      expect(replies.map((reply) => reply.outcome).sort(), `round ${round}`).toEqual(['STALE_ANSWER', 'written']);
      const winner = order[replies.findIndex((reply) => reply.outcome === 'written')]!.name;
      wins[winner]!++;
      // The answer is the one event written, at the next revision.
      expect(replies.find((reply) => reply.outcome === 'written')!.revision).toBe(head + 1);
      await reached(runId, 'complete');
      const attempts = readFileSync(sideFile, 'utf8').split('\n').filter((line) => line.endsWith(`@${runId}"`));
      expect(attempts, `round ${round}`).toEqual([JSON.stringify(`${winner}@${runId}`)]);
      const counts = (await attemptCounts(storage, runId)).get(POSITION)!;
      expect(counts).toEqual({ starts: 2, outcomes: 2, completions: 1, last: 'graph:node-completed' });
    }
  } finally {
    await client.close();
    await storage.close();
  }
  console.info(`racing resumeRun: ${ROUNDS} rounds, wins ${JSON.stringify(wins)}`);
}, FULL ? 3_600_000 : 300_000);
