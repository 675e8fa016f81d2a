import { parseArgs } from 'node:util';

export const EXAMPLE_USAGE = 'Usage: pnpm workers-example [--workers 3] [--runs 30] [--think-ms 50]';

export type ExampleArgs =
  | { readonly kind: 'run'; readonly workers: number; readonly runs: number; readonly thinkMs: number }
  | { readonly kind: 'help' }
  /** Bad usage: the one-line reason, for `workers-example: USAGE: <message>` and exit 2. */
  | { readonly kind: 'usage'; readonly message: string };

/** A decimal integer as typed, at least `min` ("1e3", "0x10", " 3" are not). */
function integerAtLeast(text: string, min: number): number | null {
  const value = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(value) && value >= min ? value : null;
}

/** The example's argv (a `--` anywhere is pnpm's and ignored); never throws. */
export function parseExampleArgs(argv: readonly string[]): ExampleArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv.filter((arg) => arg !== '--'),
      options: { workers: { type: 'string', default: '3' }, runs: { type: 'string', default: '30' }, 'think-ms': { type: 'string', default: '50' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    // node:util's parse errors (ERR_PARSE_ARGS_*): the first sentence says what was wrong.
    return { kind: 'usage', message: String((error as Error).message).split(/\.\s/)[0]!.replace(/\.$/, '') };
  }
  if (values.help) return { kind: 'help' };
  const workers = integerAtLeast(values.workers, 1);
  const runs = integerAtLeast(values.runs, 1);
  const thinkMs = integerAtLeast(values['think-ms'], 0);
  if (workers === null || runs === null || thinkMs === null) return { kind: 'usage', message: '--workers and --runs must be positive integers and --think-ms a non-negative integer' };
  return { kind: 'run', workers, runs, thinkMs };
}
