import { parseArgs } from 'node:util';
import { aiSdkEngine, usageLines } from './aiSdkEngine.js';
import { inspectCommands } from './inspectCommands.js';
import { RUN_ID, runDemo } from './runDemo.js';
import type { DemoReport, DemoStorageKind } from './runDemo.js';

const KINDS: readonly DemoStorageKind[] = ['memory', 'fs', 'sqlite', 'postgres'];

const ENGINES = ['functions', 'ai-sdk'] as const;

function print(report: DemoReport, engine: string): void {
  const out: string[] = [];
  out.push(`Roundtable demo: the release team on ${report.storage} storage, members: ${engine}`, '');
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
  const commands = report.keptIn === null ? [] : inspectCommands(report.storage, report.keptIn, RUN_ID);
  if (commands.length > 0) out.push('', 'Inspect the kept record:', ...commands.map((command) => `  ${command}`));
  out.push('', report.ok ? 'Success: the conversation completed, replayed without re-running, and projected its room.' : 'FAILED: see the checks above.');
  console.log(out.join('\n'));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: { storage: { type: 'string', default: 'fs' }, keep: { type: 'string' }, engine: { type: 'string', default: 'functions' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log('Usage: pnpm demo [--storage memory|fs|sqlite|postgres] [--keep DIR] [--engine functions|ai-sdk]');
    console.log('  --storage postgres: uses ROUNDTABLE_POSTGRES_URL, or starts an embedded PostgreSQL for the demo.');
    console.log('  --engine ai-sdk: model-backed members; offline a scripted mock model, or a real');
    console.log('  OpenAI-compatible model when OPENAI_API_KEY is set (OPENAI_BASE_URL, ROUNDTABLE_MODEL).');
    return 0;
  }
  const storage = values.storage as DemoStorageKind;
  if (!KINDS.includes(storage)) {
    console.error(`--storage must be one of ${KINDS.join(', ')}, not ${JSON.stringify(values.storage)}.`);
    return 2;
  }
  if (!(ENGINES as readonly string[]).includes(values.engine)) {
    console.error(`--engine must be one of ${ENGINES.join(', ')}, not ${JSON.stringify(values.engine)}.`);
    return 2;
  }
  const engine = values.engine === 'ai-sdk' ? aiSdkEngine() : undefined;
  const report = await runDemo({ storage, ...(values.keep === undefined ? {} : { keep: values.keep }), ...(engine === undefined ? {} : { engine }) });
  print(report, engine?.name ?? 'local functions');
  return report.ok ? 0 : 1;
}

// An error thrown by main is printed by Node, which then exits with 1.
process.exitCode = await main();
