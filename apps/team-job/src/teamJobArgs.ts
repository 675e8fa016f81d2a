import { parseArgs } from 'node:util';

export const TEAM_JOB_USAGE = 'Usage: pnpm team-job [--keep DIR]';

export type TeamJobArgs =
  | { readonly kind: 'run'; readonly keep?: string }
  | { readonly kind: 'help' }
  /** Bad usage: the one-line reason, for `team-job: USAGE: <message>` and exit 2. */
  | { readonly kind: 'usage'; readonly message: string };

/** The team job's argv (a `--` anywhere is pnpm's and ignored); never throws. */
export function parseTeamJobArgs(argv: readonly string[]): TeamJobArgs {
  let values;
  try {
    ({ values } = parseArgs({ args: argv.filter((arg) => arg !== '--'), options: { keep: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    // node:util's parse errors (ERR_PARSE_ARGS_*): the first sentence says what was wrong.
    return { kind: 'usage', message: String((error as Error).message).split(/\.\s/)[0]!.replace(/\.$/, '') };
  }
  if (values.help) return { kind: 'help' };
  if (values.keep === '') return { kind: 'usage', message: '--keep needs a directory' };
  return { kind: 'run', ...(values.keep === undefined ? {} : { keep: values.keep }) };
}
