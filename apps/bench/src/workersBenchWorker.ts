// A worker process of the workers bench: `node dist/workersBenchWorker.js <url> <id> <wait ms> <concurrency>`.
import { createWorkerPool } from '@roundtable/workers';
import { workersBenchGraph, workersBenchNodes } from './workersTeam.js';

const [connectionString = '', workerId = 'worker', waitMs = '50', concurrency = '2'] = process.argv.slice(2);
const pool = await createWorkerPool({
  connectionString,
  workerId,
  concurrency: Number(concurrency),
  teams: { [workersBenchGraph.definition.digest]: { graph: workersBenchGraph, nodes: workersBenchNodes(Number(waitMs)) } },
  onRunSettled: (runId) => process.send?.({ type: 'settled', runId }),
});
process.on('message', (message: { type?: string }) => {
  if (message.type !== 'close') return;
  void pool.close().then(() => {
    process.send?.({ type: 'closed', stats: pool.stats() });
    process.disconnect?.();
  });
});
process.send?.({ type: 'ready' });
