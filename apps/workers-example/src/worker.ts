// One worker process of the example: `node dist/worker.js <connection string> <worker id> <think ms>`.
// It runs every team it knows until it receives SIGTERM (or `close` over IPC), then closes
// gracefully: it stops claiming, lets running attempts record their outcomes, and exits.
import { createWorkerPool } from '@roundtable/workers';
import { reviewGraph, reviewNodes } from './reviewTeam.js';

const [connectionString = '', workerId = 'worker', thinkMs = '50'] = process.argv.slice(2);
const pool = await createWorkerPool({
  connectionString,
  workerId,
  concurrency: 2,
  teams: { [reviewGraph.definition.digest]: { graph: reviewGraph, nodes: reviewNodes(Number(thinkMs)) } },
  onRunSettled: (runId, result) => process.send?.({ type: 'settled', workerId, runId, kind: result.kind }),
});

let closing = false;
async function close(): Promise<void> {
  if (closing) return;
  closing = true;
  await pool.close();
  process.send?.({ type: 'closed', stats: pool.stats() });
  process.disconnect?.();
}
process.on('SIGTERM', () => void close());
process.on('message', (message: { type?: string }) => {
  if (message.type === 'close') void close();
});
process.send?.({ type: 'ready', workerId });
