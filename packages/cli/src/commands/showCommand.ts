import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import type { FormatOptions } from '../optionValues.js';
import { formatDuration, safe, safeJson, table } from '../output.js';
import { printableJson } from '../printable.js';
import { openPauses } from '../openPauses.js';
import type { OpenPause } from '../openPauses.js';
import { readRun } from '../readRun.js';
import type { AttemptRecord, RunReport } from '../runInspector.js';

function statusText(attempt: AttemptRecord): string {
  switch (attempt.status) {
    case 'failed':
    case 'retried':
      return `${attempt.status} ${safe(attempt.code ?? '?')}`;
    case 'paused':
      return `paused: ${safe(attempt.reason ?? '')}`;
    case 'dispatched':
      return 'dispatched, not started';
    case 'resumed':
      return attempt.startedAt === null ? 'resumed, not restarted' : 'resumed after its process stopped';
    default:
      return attempt.status;
  }
}

function postsText(attempt: AttemptRecord): string {
  if (attempt.posts.length === 0) return '';
  return attempt.posts.map((post) => `${safe(post.roomId)}${post.mentions.map((mention) => ` @${safe(mention)}`).join('')}`).join('; ');
}

/** The run's timeline and outcome as lines for people; every string from the record escaped. */
export function showText(report: RunReport, pauses: readonly OpenPause[] = []): string {
  const lines: string[] = [];
  const definition = report.definition;
  lines.push(
    `Run ${safe(report.runId)}: ${definition === null ? 'no definition' : `${safe(definition.kind)} ${safe(definition.id ?? '?')} (definition v${definition.definitionVersion ?? '?'}, type v${definition.typeVersion})`}, ${report.revision} events, ${report.turns} turns`,
  );
  // The run's own fork last: "a fork of b at 12, which is a fork of a at 7".
  if (report.forks.length > 0) lines.push(`A fork of ${[...report.forks].reverse().map((fork, index) => `${index === 0 ? '' : 'which is a fork of '}${safe(fork.from)} at revision ${fork.at}`).join(', ')}: revisions up to ${report.forks.at(-1)!.at} are the parent's.`);
  if (report.attempts.length > 0) {
    lines.push('');
    const rows = report.attempts.map((attempt) => [
      safe(attempt.position),
      safe(attempt.nodeId),
      attempt.attempt === 0 ? '-' : String(attempt.attempt),
      statusText(attempt),
      formatDuration(attempt.durationMs),
      postsText(attempt),
    ]);
    lines.push(table(['POSITION', 'MEMBER', 'ATTEMPT', 'STATUS', 'DURATION', 'POSTS'], rows));
    // Why each retry happened: a reason is too long for a table cell.
    for (const attempt of report.attempts) {
      if (attempt.status === 'retried') lines.push(`  ${safe(attempt.position)} attempt ${attempt.attempt} retried: ${safe(attempt.code ?? '?')}: ${safe(attempt.message ?? '')}`);
    }
  }
  lines.push('', `Outcome: ${safe(report.status.text)}`);
  const status = report.status;
  if (status.kind === 'complete' && definition?.kind === 'team') {
    const output = status.output as { agents?: { name: string; result: { summary?: string } | null }[] } | undefined;
    for (const agent of output?.agents ?? []) lines.push(`  ${safe(agent.name)}: ${safe(agent.result?.summary ?? '(no turn)')}`);
  } else if (status.kind === 'complete') {
    // Any other kind's output (a callable team job's TeamJobResult) is a document: indented.
    lines.push('  output:', ...printableJson(status.output ?? null, 2).split('\n').map((line) => `    ${line}`));
  }
  if (status.kind === 'failed') {
    lines.push(`  ${safe(status.message ?? '')}`);
    for (const failure of status.failures ?? []) lines.push(`  ${safe(failure.memberId)} at ${safe(failure.position)}: ${safe(failure.code)} ${safe(failure.message)}`);
  }
  if (status.kind === 'paused') lines.push(`  at ${safe(status.positions?.[0] ?? '?')}, request ${safeJson(status.request ?? null)}`);
  if (status.kind === 'cancelled') lines.push(`  reason: ${safe(status.reason ?? '')}`);
  if (status.kind === 'waiting') lines.push(`  attempts without an outcome (running elsewhere, or their process stopped): ${status.positions?.map(safe).join(', ')}`);
  if (status.kind === 'running') lines.push(`  next: ${status.positions?.map(safe).join(', ')}`);
  if (report.problem !== null) lines.push(`  at revision ${report.problem.revision}: ${safe(report.problem.code)}: ${safe(report.problem.message)}`);
  lines.push(...pauseLines(pauses));
  return lines.join('\n');
}

/**
 * A command as typed: escaped like every string from the record only when it holds something a
 * terminal must not get raw (then it is shown, not meant to be pasted); a shell's quoting, its
 * backslashes included, stays as it is.
 */
function pastable(command: string): string {
  const withoutBackslashes = command.replaceAll('\\', '');
  return safe(withoutBackslashes) === withoutBackslashes ? command : safe(command);
}

/** Each open pause with its revision and request, and the command that answers it. */
export function pauseLines(pauses: readonly (OpenPause & { readonly runId?: string })[]): string[] {
  if (pauses.length === 0) return [];
  const lines = ['', 'Open pauses (answer with the command; --approve or --reject [--note <text>] instead of --value for a yes or no):'];
  for (const pause of pauses) {
    const where = pause.runId === undefined ? safe(pause.position) : `${safe(pause.runId)} ${safe(pause.position)}`;
    lines.push(`  ${where} at revision ${pause.pausedAt}: ${safe(pause.reason)}`, `    request ${safeJson(pause.request)}`, `    ${pastable(pause.answer)}`);
  }
  return lines;
}

/** `roundtable show <runId>`. Exit 1 for a failed or unreadable run. */
export async function showCommand(io: CliIo, runId: string, options: FormatOptions): Promise<number> {
  const format = options.output ?? 'text';
  return withStorage(io, options, async (storage) => {
    const report = (await readRun(storage, runId)).report();
    const pauses = openPauses(runId, report.attempts, report.status, options.store ?? null);
    println(io, format === 'json' ? printableJson({ ...report, openPauses: pauses }, 2) : showText(report, pauses));
    return report.status.kind === 'failed' || report.status.kind === 'unreadable' ? ExitCodes.NOT_WELL : ExitCodes.OK;
  });
}
