import { parseArgs } from 'node:util';
import type { DemoStorageKind } from './runDemo.js';
import type { ReviewerKind } from './teamConversation.js';

export const DEMO_USAGE = 'Usage: pnpm demo [--storage memory|fs|sqlite|postgres] [--keep DIR] [--engine functions|ai-sdk] [--serve] [--reviewer approve|reject] [--run RUN_ID]';

const KINDS: readonly DemoStorageKind[] = ['memory', 'fs', 'sqlite', 'postgres'];
const ENGINES = ['functions', 'ai-sdk'] as const;
const REVIEWERS: readonly ReviewerKind[] = ['approve', 'reject'];
/** The storage's stream-id rule: a run id the demo may run. */
const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export type DemoArgs =
  /** `serve`: the reviewer asks a person first, and the run waits for the answer from another process. */
  | {
      readonly kind: 'run';
      readonly storage: DemoStorageKind;
      readonly engine: (typeof ENGINES)[number];
      readonly keep?: string;
      readonly serve: boolean;
      readonly reviewer: ReviewerKind;
      readonly runId?: string;
    }
  | { readonly kind: 'help' }
  /** Bad usage: the one-line reason, for `demo: USAGE: <message>` and exit 2. */
  | { readonly kind: 'usage'; readonly message: string };

/** The demo's argv (a `--` anywhere is pnpm's and ignored); never throws. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv.filter((arg) => arg !== '--'),
      options: { storage: { type: 'string', default: 'fs' }, keep: { type: 'string' }, engine: { type: 'string', default: 'functions' }, serve: { type: 'boolean', default: false },
        reviewer: { type: 'string', default: 'approve' },
        run: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
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
  const reviewer = REVIEWERS.find((name) => name === values.reviewer);
  if (reviewer === undefined) return { kind: 'usage', message: `--reviewer must be one of ${REVIEWERS.join(', ')}, not ${JSON.stringify(values.reviewer)}` };
  if (values.run !== undefined && !RUN_ID_PATTERN.test(values.run)) return { kind: 'usage', message: `--run must be a run id (letters, digits, '.', '_', '-'; at most 128), not ${JSON.stringify(values.run)}` };
  if (values.run !== undefined && engine !== 'functions') return { kind: 'usage', message: '--run goes with the local functions (--engine functions)' };
  if (values.reviewer !== 'approve' && engine !== 'functions') return { kind: 'usage', message: '--reviewer goes with the local functions (--engine functions)' };
  if (values.serve && storage !== 'fs' && storage !== 'sqlite') return { kind: 'usage', message: `--serve needs a record that roundtable answer in another process can reach: --storage fs or sqlite, not ${storage}` };
  return { kind: 'run', storage, engine, serve: values.serve, reviewer, ...(values.keep === undefined ? {} : { keep: values.keep }), ...(values.run === undefined ? {} : { runId: values.run }) };
}
