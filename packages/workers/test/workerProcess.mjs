// A worker process for the multi-process tests: runs a worker pool over the test team until told
// to close (or killed). IPC in: { type: 'close' } | { type: 'stats' }; out: { type: 'ready' },
// { type: 'attempt', position } when a member starts, { type: 'stats', stats }, { type: 'closed', stats }.
// Usage: workerProcess.mjs <connection string> <worker id> <json options: { turns, waitMs, concurrency, leaseMs, nonRetrySafe? }>
import process from 'node:process';
import { createWorkerPool } from '../dist/index.js';
import { workersTeamGraph, workersTeamNodes } from './team.mjs';

const [connectionString = '', workerId = 'worker', optionsText = '{}'] = process.argv.slice(2);
/** @type {unknown} */
const parsed = JSON.parse(optionsText);
const options = /** @type {{ turns: number; waitMs: number; concurrency?: number; leaseMs?: number; nonRetrySafe?: string[] }} */ (parsed);
const graph = workersTeamGraph(options.turns);
const nodes = workersTeamNodes({
  turns: options.turns,
  waitMs: options.waitMs,
  retrySafe: (member) => !(options.nonRetrySafe ?? []).includes(member),
  onAttempt: (position) => process.send?.({ type: 'attempt', position, workerId }),
});
const pool = await createWorkerPool({
  connectionString,
  workerId,
  teams: { [graph.definition.digest]: { graph, nodes } },
  ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  pollIntervalMs: 200,
});
process.on('message', (/** @type {{ type: string }} */ message) => {
  if (message.type === 'stats') process.send?.({ type: 'stats', stats: pool.stats() });
  if (message.type === 'close') {
    void pool.close().then(() => {
      process.send?.({ type: 'closed', stats: pool.stats() });
      process.disconnect();
    });
  }
});
process.send?.({ type: 'ready', workerId });
