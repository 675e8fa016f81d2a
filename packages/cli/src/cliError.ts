import { RoundtableError, errorGuard } from '@roundtable/core';
import { DEFAULT_NAMESPACE } from '@roundtable/storage';
import type { CliErrorCode } from './cliErrorCodes.js';

export { CliErrorCodes } from './cliErrorCodes.js';
export type { CliErrorCode } from './cliErrorCodes.js';

export class CliError extends RoundtableError<CliErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/cli/error');
  override name = 'CliError';
}

/** True when `error` is a CLI error (from any installed copy), optionally with `code`. */
export const isCliError = errorGuard(CliError);

/** `roundtable runs`, with the namespace when it is not the default: the command that lists what `namespace` holds. */
function runsCommandLine(namespace: string): string {
  return namespace === DEFAULT_NAMESPACE ? 'roundtable runs' : `roundtable runs --namespace ${namespace}`;
}

/** RUN_NOT_FOUND: no run `runId` in `namespace` (a typo in either looks the same), with the command that lists the runs there. */
export function runNotFound(runId: string, namespace: string): CliError {
  return new CliError(
    'RUN_NOT_FOUND',
    `The store has no run ${JSON.stringify(runId)} in namespace ${JSON.stringify(namespace)}: \`${runsCommandLine(namespace)}\` lists its runs (--namespace picks another namespace).`,
    { details: { runId, namespace } },
  );
}
