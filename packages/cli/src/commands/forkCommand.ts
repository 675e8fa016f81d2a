import { forkRun } from '@roundtable/scheduler';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withRunForAppend } from '../cliContext.js';
import { knownGraphTypeList } from '../graphTypes.js';
import type { FormatOptions } from '../optionValues.js';
import { safe } from '../output.js';
import { printableJson } from '../printable.js';

export interface ForkOptions extends FormatOptions {
  readonly at: number;
  readonly to: string;
}

/**
 * `roundtable fork <runId> --at <revision> --to <newRunId>`: appends `graph:run-forked` to the
 * new run (`forkRun`: one event, whatever the parent's length) and prints its revision, `at + 1`.
 * Exit 1 when the record refuses it (INVALID_FORK_POINT, RUN_EXISTS, FORK_TOO_DEEP), nothing
 * written. The fork runs when a program's executor (or `serve`) runs it, with its own bindings.
 */
export async function forkCommand(io: CliIo, runId: string, options: ForkOptions): Promise<number> {
  const format = options.output ?? 'text';
  return withRunForAppend(io, options, runId, async (storage) => {
    const written = await forkRun({ storage, from: runId, at: options.at, to: options.to, types: knownGraphTypeList });
    if (format === 'json') println(io, printableJson({ runId: written.runId, from: runId, at: options.at, revision: written.revision }, 2));
    else println(io, `Forked run ${safe(runId)} at revision ${options.at} into ${safe(written.runId)}: wrote revision ${written.revision}.`);
    return ExitCodes.OK;
  });
}
