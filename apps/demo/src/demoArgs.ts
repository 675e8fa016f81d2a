import { parseArgs } from 'node:util';
import type { DemoStorageKind } from './runDemo.js';

export const DEMO_USAGE = 'Usage: pnpm demo [--storage memory|fs|sqlite|postgres] [--keep DIR] [--engine functions|ai-sdk] [--serve]';

const KINDS: readonly DemoStorageKind[] = ['memory', 'fs', 'sqlite', 'postgres'];
const ENGINES = ['functions', 'ai-sdk'] as const;

export type DemoArgs =
  /** `serve`: the reviewer asks a person first, and the run waits for the answer from another process. */
  | { readonly kind: 'run'; readonly storage: DemoStorageKind; readonly engine: (typeof ENGINES)[number]; readonly keep?: string; readonly serve: boolean }
  | { readonly kind: 'help' }
  /** Bad usage: the one-line reason, for `demo: USAGE: <message>` and exit 2. */
  | { readonly kind: 'usage'; readonly message: string };

/** The demo's argv (a `--` anywhere is pnpm's and ignored); never throws. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv.filter((arg) => arg !== '--'),
      options: { storage: { type: 'string', default: 'fs' }, keep: { type: 'string' }, engine: { type: 'string', default: 'functions' }, serve: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    // node:util's parse errors (ERR_PARSE_ARGS_*): the first sentence says what was wrong.
    return { kind: 'usage', message: String((error as Error).message).split(/\.\s/)[0]!.replace(/\.$/, '') };
  }
  if (values.help) return { kind: 'help' };
  const storage = KINDS.find((kind) => kind === values.storage);
  if (storage === undefined) return { kind: 'usage', message: `--storage must be one of ${KINDS.join(', ')}, not ${JSON.stringify(values.storage)}` };
  const engine = ENGINES.find((name) => name === values.engine);
  if (engine === undefined) return { kind: 'usage', message: `--engine must be one of ${ENGINES.join(', ')}, not ${JSON.stringify(values.engine)}` };
  if (values.keep === '') return { kind: 'usage', message: '--keep needs a directory' };
  if (values.serve && storage !== 'fs' && storage !== 'sqlite') return { kind: 'usage', message: `--serve needs a record that roundtable answer in another process can reach: --storage fs or sqlite, not ${storage}` };
  return { kind: 'run', storage, engine, serve: values.serve, ...(values.keep === undefined ? {} : { keep: values.keep }) };
}
