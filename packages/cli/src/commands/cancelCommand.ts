import { cancelReasonProblem } from '@roundtable/graph';
import { cancelRun } from '@roundtable/scheduler';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withRunForAppend } from '../cliContext.js';
import { CliError } from '../cliError.js';
import { knownGraphTypeList } from '../graphTypes.js';
import type { FormatOptions } from '../optionValues.js';
import { safe } from '../output.js';
import { printableJson } from '../printable.js';

export interface CancelOptions extends FormatOptions {
  readonly reason: string;
}

/** `--reason`, by the record's rule for it (a non-empty string of at most 1,024 characters). */
export function parseCancelReason(value: string): string {
  const problem = cancelReasonProblem(value);
  if (problem !== null) throw new CliError('USAGE', `--reason: ${problem}`);
  return value;
}

/**
 * `roundtable cancel <runId> --reason <text>`: appends `graph:run-cancelled` (`cancelRun`) and
 * prints the revision written. Attempts in flight in other processes hear of it and stop.
 * Exit 1 when the run has ended (RUN_ENDED), nothing written.
 */
export async function cancelCommand(io: CliIo, runId: string, options: CancelOptions): Promise<number> {
  const format = options.output ?? 'text';
  return withRunForAppend(io, options, runId, async (storage) => {
    const { revision } = await cancelRun({ storage, runId, reason: options.reason, types: knownGraphTypeList });
    if (format === 'json') println(io, printableJson({ runId, revision }, 2));
    else println(io, `Cancelled run ${safe(runId)}: wrote revision ${revision}.`);
    return ExitCodes.OK;
  });
}
