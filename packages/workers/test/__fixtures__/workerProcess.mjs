// A worker process for the multi-process tests: runs a worker pool over the test team until told
// to close (or killed). IPC in: { type: 'close' } | { type: 'stats' } | { type: 'go', attempt };
// out: { type: 'ready' }, { type: 'attempt', position, attempt } when a member starts (attempt:
// this process's count), { type: 'stats', stats }, { type: 'closed', stats }.
// With `gated`, a member goes on only once { type: 'go', attempt } names its attempt: the test
// decides, by what the worker reached and not by the clock, whether a kill or a freeze lands inside it.
// Usage: workerProcess.mjs <connection string> <worker id> <json options: { turns, waitMs, concurrency, leaseMs, nonRetrySafe?, gated? }>
import process from 'node:process';
import { createWorkerPool } from '../../dist/index.js';
import { workersTeamGraph, workersTeamNodes } from './team.mjs';

const [connectionString = '', workerId = 'worker', optionsText = '{}'] = process.argv.slice(2);
/** @type {unknown} */
const parsed = JSON.parse(optionsText);
const options = /** @type {{ turns: number; waitMs: number; concurrency?: number; leaseMs?: number; nonRetrySafe?: string[]; gated?: boolean }} */ (parsed);
const graph = workersTeamGraph(options.turns);
let attempts = 0;
/** @type {Map<number, () => void>} */
const gates = new Map();
const nodes = workersTeamNodes({
  turns: options.turns,
  waitMs: options.waitMs,
  retrySafe: (member) => !(options.nonRetrySafe ?? []).includes(member),
  onAttempt: (position) => {
    const attempt = ++attempts;
    process.send?.({ type: 'attempt', position, workerId, attempt });
    if (options.gated !== true) return undefined;
    return new Promise((resolve) => gates.set(attempt, () => resolve(undefined)));
  },
});
const pool = await createWorkerPool({
  connectionString,
  workerId,
  teams: { [graph.definition.digest]: { graph, nodes } },
  ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  pollIntervalMs: 200,
});
process.on('message', (/** @type {{ type: string; attempt?: number }} */ message) => {
  if (message.type === 'go') {
    gates.get(message.attempt ?? 0)?.();
    gates.delete(message.attempt ?? 0);
  }
  if (message.type === 'stats') process.send?.({ type: 'stats', stats: pool.stats() });
  if (message.type === 'close') {
    void pool.close().then(() => {
      process.send?.({ type: 'closed', stats: pool.stats() });
      process.disconnect();
    });
  }
});
process.send?.({ type: 'ready', workerId });
