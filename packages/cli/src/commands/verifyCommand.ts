import { isRoundtableError } from '@roundtable/core';
import { verifyForkPrefix } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import { CliError } from '../cliError.js';
import type { FormatOptions } from '../optionValues.js';
import { safe } from '../output.js';
import { printableJson } from '../printable.js';
import { Progress } from '../progress.js';
import { readRun } from '../readRun.js';
import type { RecordProblem } from '../runInspector.js';
import { noRuns } from './runsCommand.js';

export interface VerifiedRun {
  readonly runId: string;
  readonly ok: boolean;
  /** Events read before the end of the record or the damage that stopped the read. */
  readonly events: number;
  readonly problems: readonly RecordProblem[];
}

export interface VerifyOptions extends FormatOptions {
  readonly all?: boolean;
}

/** The fork prefix check (`verifyForkPrefix`) as a problem of the run: CORRUPT_EVENT_STREAM naming the fork and the parent. */
async function forkPrefixProblem(storage: RunStorage, runId: string): Promise<RecordProblem | null> {
  try {
    await verifyForkPrefix({ storage, runId });
    return null;
  } catch (error) {
    if (!isRoundtableError(error)) throw error;
    const revision = error.details?.revision;
    return { revision: typeof revision === 'number' ? revision : 1, code: error.code, message: error.message };
  }
}

/**
 * `roundtable verify [<runId>…|--all]`: reads each record through the adapter's damage checks
 * and folds it with the executor's strict fold; a fork's prefix digest is recomputed (a parent
 * changed under it is CORRUPT_EVENT_STREAM). Exit 1 when any run has a problem.
 */
export async function verifyCommand(io: CliIo, runIds: readonly string[], options: VerifyOptions): Promise<number> {
  const format = options.output ?? 'text';
  if (options.all === true && runIds.length > 0) throw new CliError('USAGE', 'Give run ids or --all, not both.');
  if (options.all !== true && runIds.length === 0) throw new CliError('USAGE', 'Name the runs to verify, or pass --all.');
  return withStorage(io, options, async (storage) => {
    const ids = [...runIds];
    const progress = new Progress(io.stderr, 'verifying', 0, io.env);
    if (options.all === true) {
      for await (const { streamId } of storage.streams()) ids.push(streamId);
    }
    const results: VerifiedRun[] = [];
    try {
      for (const runId of ids) {
        const inspector = await readRun(storage, runId, progress);
        const report = inspector.report();
        const problems: RecordProblem[] = [];
        if (report.problem !== null) problems.push(report.problem);
        if (inspector.damage !== null && inspector.damage !== report.problem) problems.push(inspector.damage);
        if (report.status.kind === 'unknown') {
          problems.push({ revision: 1, code: 'UNKNOWN_GRAPH_KIND', message: `No strict fold is known for ${report.definition?.kind} v${report.definition?.typeVersion}; the record was only read.` });
        }
        // A fork's record reads well even when its parent changed under it: only the digest tells.
        if (problems.length === 0 && report.forks.length > 0) {
          const problem = await forkPrefixProblem(storage, runId);
          if (problem !== null) problems.push(problem);
        }
        const events = inspector.damage === null ? report.revision : inspector.damage.revision - 1;
        results.push({ runId, ok: problems.length === 0, events, problems });
      }
    } finally {
      progress.finish();
    }
    const ok = results.every((result) => result.ok);
    if (format === 'json') println(io, printableJson({ ok, runs: results }, 2));
    else {
      for (const result of results) {
        if (result.ok) println(io, `ok    ${safe(result.runId)} (${result.events} events)`);
        for (const problem of result.problems) println(io, `FAIL  ${safe(result.runId)} at revision ${problem.revision}: ${safe(problem.code)}: ${safe(problem.message)}`);
      }
      if (results.length === 0) println(io, noRuns(storage.identity.namespace));
    }
    return ok ? ExitCodes.OK : ExitCodes.NOT_WELL;
  });
}
