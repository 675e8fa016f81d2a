import { parseArgs } from 'node:util';
import { runExample } from './runExample.js';

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: { workers: { type: 'string', default: '3' }, runs: { type: 'string', default: '30' }, 'think-ms': { type: 'string', default: '50' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log('Usage: pnpm --filter @roundtable/workers-example start [--workers 3] [--runs 30] [--think-ms 50]');
    return 0;
  }
  const workers = Number(values.workers);
  const runs = Number(values.runs);
  const thinkMs = Number(values['think-ms']);
  if (![workers, runs].every((n) => Number.isSafeInteger(n) && n >= 1) || !Number.isSafeInteger(thinkMs) || thinkMs < 0) {
    console.error('--workers and --runs must be positive integers and --think-ms a non-negative integer.');
    return 2;
  }
  const report = await runExample({ workers, runs, thinkMs, log: (line) => console.log(line) });
  console.log(report.ok ? `Success: every run's result equals a single-process run's.` : `FAILED: ${report.mismatches.length} runs differ: ${report.mismatches.join(', ')}`);
  return report.ok ? 0 : 1;
}

// An error thrown by main is printed by Node, which then exits with 1.
process.exitCode = await main();
