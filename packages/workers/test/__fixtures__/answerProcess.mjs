// A child process for the racing-answers test (racingAnswers.test.ts), in one of two modes:
//   pool <connection string> <side file>   runs a worker pool over the approval team; its member
//                                          appends the answer it runs with to the side file, one
//                                          line per attempt, so the parent counts real attempts.
//   answer <connection string> <name>      holds a run client; on { runId, position } it calls
//                                          resumeRun with the value "<name>@<runId>" and replies
//                                          { outcome: 'written' | <error code>, revision? }.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { createRunClient, createWorkerPool } from '../../dist/index.js';
import { approvalTeamGraph } from './approvalTeam.mjs';

const [mode = '', connectionString = '', argument = ''] = process.argv.slice(2);

/** @param {unknown} error */
const codeOf = (error) => (typeof error === 'object' && error !== null && typeof (/** @type {{ code?: unknown }} */ (error).code) === 'string' ? /** @type {{ code: string }} */ (error).code : String(error));

if (mode === 'pool') {
  const graph = approvalTeamGraph();
  /** @type {Record<string, import('@roundtable/scheduler').NodeBinding>} */
  const nodes = {
    shipper: {
      decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason: 'needs approval', request: { ask: 'ship?' } } : { kind: 'allow' }),
      run: (ctx) => {
        appendFileSync(argument, `${JSON.stringify(ctx.resume)}\n`);
        return { summary: `shipped with ${JSON.stringify(ctx.resume)}` };
      },
    },
  };
  const pool = await createWorkerPool({ connectionString, teams: { [graph.definition.digest]: { graph, nodes } }, pollIntervalMs: 100 });
  process.on('disconnect', () => void pool.close().then(() => process.exit(0)));
} else {
  const client = await createRunClient({ connectionString });
  process.on('message', (/** @type {{ runId: string; position: string }} */ message) => {
    void client.resumeRun({ runId: message.runId, position: message.position, value: `${argument}@${message.runId}` }).then(
      ({ revision }) => process.send?.({ outcome: 'written', revision }),
      (error) => process.send?.({ outcome: codeOf(error) }),
    );
  });
  process.on('disconnect', () => void client.close().then(() => process.exit(0)));
}
process.send?.({ outcome: 'ready' });
