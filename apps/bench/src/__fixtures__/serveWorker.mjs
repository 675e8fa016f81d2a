// A child process for the serve-kill test (serveKills.test.ts): it holds the seed team's run
// with `executor.serve()`, the reviewer asking a person first. Started again after a SIGKILL it
// first resumes each attempt the killed process left started (it is the run's only holder now),
// then serves. Each member appends one line per attempt it begins and one per attempt it ends
// to a side file, so the parent counts real runs of members, not records. It prints the
// result's kind and exits. Usage: serveWorker.mjs <fs|sqlite|postgres> <path> <runId> <side file>
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { seedTeam } from '@roundtable/test-utils';
import { openFaultStorage } from '../../dist/faultStorage.js';

const [kind = '', path = '', runId = '', sides = ''] = process.argv.slice(2);
const graph = compileGraph(teamGraphType, seedTeam());

/** @param {string} member @param {(input: any) => object} turn */
const member = (member, turn) => ({
  retrySafe: true,
  /** @param {{ position: string; attempt: number; input: any }} ctx */
  run: async (ctx) => {
    appendFileSync(sides, `begin ${ctx.position} ${ctx.attempt}\n`);
    await sleep(3);
    const result = turn(ctx.input);
    appendFileSync(sides, `end ${ctx.position} ${ctx.attempt}\n`);
    return result;
  },
});
const nodes = {
  writer: member('writer', (input) =>
    input.result === null ? { summary: 'Draft ready.', posts: [{ roomId: 'review', text: 'Please review the draft.', mentions: ['reviewer'] }] } : { summary: 'Final notes.' },
  ),
  reviewer: {
    ...member('reviewer', () => ({ summary: 'Reviewed.', posts: [{ roomId: 'review', text: 'Approved: ship it.', mentions: ['writer'] }] })),
    /** @param {{ resume: unknown; pause: { reason: string } | null }} ctx */
    decideAction: (ctx) => (ctx.pause?.reason === 'approve the review' ? { kind: 'allow' } : { kind: 'wait', reason: 'approve the review', request: { kind: 'approval' } }),
  },
};

const storage = await openFaultStorage(kind, path);
const executor = await createGraphExecutor({ runId, graph, storage, nodes });
// Attempts the killed process left started: this process is the run's holder now.
for (const attempt of executor.next().kind === 'attempts' ? /** @type {any} */ (executor.next()).inFlight : []) await executor.resume(attempt.position);
process.stdout.write('serving\n');
const result = await executor.serve({ pollIntervalMs: 20 });
await storage.close();
process.stdout.write(`${JSON.stringify({ kind: result.kind })}\n`);
