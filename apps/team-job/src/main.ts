import { runTeamJob } from './runTeamJob.js';
import { TEAM_JOB_USAGE, parseTeamJobArgs } from './teamJobArgs.js';
import type { TeamJobReport } from './runTeamJob.js';

function print(report: TeamJobReport): void {
  const { result } = report;
  const out: string[] = [`Roundtable team job: ${result.task}`, ''];
  out.push('Agents:');
  for (const agent of result.agents) out.push(`  ${agent.name} (${agent.role}): ${agent.outcome} — ${agent.summary ?? ''} [${agent.commit?.slice(0, 10) ?? 'no commit'} on ${agent.branch}]`);
  out.push('', `Integration: ${result.integrated ? `${result.integration!.branch} at ${result.integration!.commit!.slice(0, 10)}` : 'not integrated'}`);
  for (const line of report.integratedLog) out.push(`  ${line}`);
  if (result.review?.kind === 'panel') {
    out.push('', `Review: ${result.review.verdict} (${result.review.passes} of ${result.review.reviewers.length}, threshold ${result.review.threshold})`);
    for (const reviewer of result.review.reviewers) out.push(`  ${reviewer.name}: ${reviewer.outcome} — ${reviewer.summary ?? ''}`);
  }
  out.push('', `Your branch: ${report.user.branch} at ${report.user.headAfter.slice(0, 10)}, working tree ${report.user.status === '' ? 'clean' : 'CHANGED'}`);
  out.push('', 'Checks:');
  for (const check of report.checks) out.push(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}`);
  if (report.keptIn !== null) out.push('', `Repository and record kept in ${report.keptIn}`);
  out.push('', report.ok ? 'Success: two agents worked in their own worktrees, their work was integrated and reviewed, and the record replays.' : 'FAILED: see the checks above.');
  console.log(out.join('\n'));
}

async function main(): Promise<number> {
  const args = parseTeamJobArgs(process.argv.slice(2));
  if (args.kind === 'usage') {
    console.error(`team-job: USAGE: ${args.message}.\n${TEAM_JOB_USAGE}`);
    return 2;
  }
  if (args.kind === 'help') {
    console.log(TEAM_JOB_USAGE);
    return 0;
  }
  const report = await runTeamJob(args.keep === undefined ? {} : { keep: args.keep });
  print(report);
  return report.ok ? 0 : 1;
}

// An error thrown by main is printed by Node, which then exits with 1.
process.exitCode = await main();
