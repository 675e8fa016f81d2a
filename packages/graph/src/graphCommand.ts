import { z } from 'zod';
import { GraphErrorCodes, graphIssue } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import { JsonValueSchema, hasOwn, isJsonValue, isRecord } from './json.js';

/** Run one node: `position` names this attempt of the node uniquely within the run. */
export const DispatchCommandSchema = z.strictObject({
  kind: z.literal('dispatch'),
  nodeId: z.string(),
  position: z.string().min(1),
  input: JsonValueSchema,
});

export const PauseCommandSchema = z.strictObject({ kind: z.literal('pause'), reason: z.string() });
export const CompleteCommandSchema = z.strictObject({ kind: z.literal('complete'), output: JsonValueSchema });
export const FailCommandSchema = z.strictObject({ kind: z.literal('fail'), code: z.string().min(1), message: z.string() });

/** A command that ends (`complete`, `fail`) or halts (`pause`) the run. */
export const TerminalCommandSchema = z.discriminatedUnion('kind', [PauseCommandSchema, CompleteCommandSchema, FailCommandSchema]);

/** What `decide` returns a list of: dispatches only, or exactly one terminal command. */
export const GraphCommandSchema = z.discriminatedUnion('kind', [DispatchCommandSchema, PauseCommandSchema, CompleteCommandSchema, FailCommandSchema]);

export type DispatchCommand = z.infer<typeof DispatchCommandSchema>;
export type PauseCommand = z.infer<typeof PauseCommandSchema>;
export type CompleteCommand = z.infer<typeof CompleteCommandSchema>;
export type FailCommand = z.infer<typeof FailCommandSchema>;
export type TerminalCommand = z.infer<typeof TerminalCommandSchema>;
export type GraphCommand = z.infer<typeof GraphCommandSchema>;

/** Each command kind's exact fields, read from its schema so the hot-path check below cannot drift from it. */
const COMMAND_KEYS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  GraphCommandSchema.options.map((schema) => [schema.shape.kind.value, Object.keys(schema.shape)]),
);

function hasExactKeys(command: Record<string, unknown>, keys: readonly string[]): boolean {
  return Object.keys(command).length === keys.length && keys.every((key) => hasOwn(command, key));
}

function dispatchIssue(
  command: Record<string, unknown>,
  path: string,
  nodeIds: ReadonlySet<string>,
  positions: Set<string> | null,
  inputIsJson: (input: unknown) => boolean,
): GraphValidationIssue | null {
  const code = GraphErrorCodes.INVALID_GRAPH_COMMAND;
  const { nodeId, position } = command;
  if (typeof nodeId !== 'string' || !nodeIds.has(nodeId)) return graphIssue(code, `${path}/nodeId`, 'A dispatch must name a declared node.');
  if (typeof position !== 'string' || position === '') return graphIssue(code, `${path}/position`, 'A dispatch position must be a non-empty string.');
  if (positions !== null) {
    if (positions.has(position)) return graphIssue(code, `${path}/position`, `Dispatch position "${position}" appears twice.`);
    positions.add(position);
  }
  if (!inputIsJson(command['input'])) return graphIssue(code, `${path}/input`, 'A dispatch input must be a JSON value.');
  return null;
}

function terminalIssue(command: Record<string, unknown>, path: string): GraphValidationIssue | null {
  const code = GraphErrorCodes.INVALID_GRAPH_COMMAND;
  switch (command['kind']) {
    case 'pause':
      return typeof command['reason'] === 'string' ? null : graphIssue(code, `${path}/reason`, 'A pause reason must be a string.');
    case 'complete':
      return isJsonValue(command['output']) ? null : graphIssue(code, `${path}/output`, 'A complete output must be a JSON value.');
    default:
      if (typeof command['code'] !== 'string' || command['code'] === '') return graphIssue(code, `${path}/code`, 'A fail code must be a non-empty string.');
      return typeof command['message'] === 'string' ? null : graphIssue(code, `${path}/message`, 'A fail message must be a string.');
  }
}

/**
 * Every problem of a command list returned by `decide`: it must be dispatches only (unique
 * positions, declared nodes, JSON inputs) or exactly one terminal command. This runs once per
 * `decide`, so it is written by hand (one JSON walk per input, remembered for frozen values)
 * rather than parsed with `GraphCommandSchema`; its field lists come from the schemas.
 * `inputIsJson` judges each dispatch input: a walk (`isJsonValue`) unless the graph type
 * registered a cheaper check that gives the same verdict for the inputs it builds.
 */
export function validateGraphCommands(commands: unknown, nodeIds: ReadonlySet<string>, inputIsJson: (input: unknown) => boolean = isJsonValue): GraphValidationIssue[] {
  const code = GraphErrorCodes.INVALID_GRAPH_COMMAND;
  if (!Array.isArray(commands)) return [graphIssue(code, '', 'decide must return an array of commands.')];
  const issues: GraphValidationIssue[] = [];
  // A single command cannot repeat a position: no set for the usual batch of one.
  const positions = commands.length > 1 ? new Set<string>() : null;
  let terminals = 0;
  for (let index = 0; index < commands.length; index++) {
    const path = `/${index}`;
    const command: unknown = commands[index];
    const kind = isRecord(command) ? command['kind'] : undefined;
    const keys = typeof kind === 'string' && hasOwn(COMMAND_KEYS, kind) ? COMMAND_KEYS[kind] : undefined;
    if (!isRecord(command) || keys === undefined) {
      issues.push(graphIssue(code, path, 'A command must be an object whose kind is dispatch, pause, complete or fail.'));
      continue;
    }
    if (!hasExactKeys(command, keys)) {
      issues.push(graphIssue(code, path, `A ${String(kind)} command has exactly the fields ${keys.join(', ')}.`));
      continue;
    }
    const issue = kind === 'dispatch' ? dispatchIssue(command, path, nodeIds, positions, inputIsJson) : terminalIssue(command, path);
    if (kind !== 'dispatch') terminals++;
    if (issue !== null) issues.push(issue);
  }
  if (terminals > 0 && commands.length > 1) {
    issues.push(graphIssue(code, '', 'A terminal command (pause, complete, fail) must be the only command.'));
  }
  return issues;
}
