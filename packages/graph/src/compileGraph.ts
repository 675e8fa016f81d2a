import { canonicalJson, copyFrozenJson, digest, isIdentifier } from '@roundtable/core';
import type { Digest, Json, ReadonlyJson } from '@roundtable/core';
import { GraphErrorCodes, GraphValidationError, graphIssue } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import { dispatchInputCheckOf } from './dispatchInputCheck.js';
import { validateGraphCommands } from './graphCommand.js';
import type { GraphCommand } from './graphCommand.js';
import { assertGraphDefinition } from './graphDefinition.js';
import type { GraphDefinition, GraphEdge, GraphNode } from './graphDefinition.js';
import { checkGraphEvent, payloadIssue } from './graphEvent.js';
import type { GraphEvent } from './graphEvent.js';
import type { GraphType, GraphTypeFunctions } from './graphType.js';
import { isJsonValue, isPositiveSafeInteger, isRecord } from './json.js';

/**
 * A definition whose node ids TypeScript can see: passing a literal (or an `as const` value)
 * to `compileGraph` keeps each id as a literal type, so `teamMembers` can check binding keys.
 * Its lists and JSON data may be read-only, as an `as const` value's are.
 */
export type GraphDefinitionInput<NodeId extends string = string> = Omit<GraphDefinition, 'data' | 'nodes' | 'edges'> & {
  readonly data: ReadonlyJson;
  readonly nodes: readonly (Omit<GraphNode, 'id' | 'data'> & { readonly id: NodeId; readonly data: ReadonlyJson })[];
  readonly edges: readonly (Omit<GraphEdge, 'data'> & { readonly data: ReadonlyJson })[];
};

/** The stored definition of a compiled graph, typed with its node ids. */
export type CompiledDefinition<NodeId extends string = string> = GraphDefinition & {
  readonly nodes: readonly (GraphDefinition['nodes'][number] & { readonly id: NodeId })[];
};

/**
 * A definition compiled by its graph type, with every function checked at the boundary.
 * `NodeId` is the union of its node ids when the definition was a literal, else `string`.
 */
export interface CompiledGraph<State, NodeId extends string = string> {
  readonly kind: string;
  readonly typeVersion: number;
  readonly definition: {
    /** A deep-frozen copy of the definition: later edits to the caller's value change nothing. */
    readonly value: CompiledDefinition<NodeId>;
    readonly canonicalJson: string;
    readonly digest: Digest;
  };
  readonly initialState: () => State;
  /** Throws `GraphValidationError` INVALID_GRAPH_TYPE unless `event` is exactly `{ type, version, payload }`. */
  readonly reduce: (state: State, event: GraphEvent) => State;
  /** Throws `GraphValidationError` INVALID_GRAPH_COMMAND if the graph type returns an invalid list. */
  readonly decide: (state: State) => GraphCommand[];
  readonly describe: () => Json;
  /** Present when the graph type validates node results. */
  readonly validateNodeResult?: (nodeId: string, result: unknown) => GraphValidationIssue | null;
}

/**
 * For each graph `compileGraph` made, its `reduce` for an event whose caller built it as
 * `{ type, version, payload }` with a string type and a finite version (the fold does, after
 * `graphEventProblem`): of `checkGraphEvent`, only the payload's check is left to do.
 */
const builtEventReducers = new WeakMap<object, (state: never, event: GraphEvent) => unknown>();

/**
 * `graph.reduce` for events built as `builtEventReducers` says, skipping the envelope checks
 * that the building made redundant; a graph compiled by another copy of this package gets its
 * own checked `reduce`.
 */
export function builtEventReducer<State>(graph: CompiledGraph<State>): (state: State, event: GraphEvent) => State {
  return (builtEventReducers.get(graph) as ((state: State, event: GraphEvent) => State) | undefined) ?? graph.reduce;
}

function graphTypeIssues(type: unknown): GraphValidationIssue[] {
  const code = GraphErrorCodes.INVALID_GRAPH_TYPE;
  if (!isRecord(type)) return [graphIssue(code, '', 'A graph type must be an object { kind, version, compile }.')];
  const issues: GraphValidationIssue[] = [];
  if (!isIdentifier(type['kind'])) issues.push(graphIssue(code, '/kind', 'A graph type kind must be an identifier.'));
  if (!isPositiveSafeInteger(type['version'])) issues.push(graphIssue(code, '/version', 'A graph type version must be a positive safe integer.'));
  if (typeof type['compile'] !== 'function') issues.push(graphIssue(code, '/compile', 'A graph type must have a compile function.'));
  return issues;
}

function compiledFunctionIssues(functions: unknown): GraphValidationIssue[] {
  const code = GraphErrorCodes.INVALID_GRAPH_TYPE;
  if (!isRecord(functions)) return [graphIssue(code, '', 'compile must return an object of functions.')];
  const issues: GraphValidationIssue[] = [];
  for (const name of ['initialState', 'reduce', 'decide', 'describe']) {
    if (typeof functions[name] !== 'function') issues.push(graphIssue(code, `/${name}`, `compile must return a ${name} function.`));
  }
  const validate = functions['validateNodeResult'];
  if (validate !== undefined && typeof validate !== 'function') {
    issues.push(graphIssue(code, '/validateNodeResult', 'validateNodeResult must be a function when present.'));
  }
  return issues;
}

function throwIfAny(issues: GraphValidationIssue[]): void {
  if (issues.length > 0) throw new GraphValidationError(issues);
}

/**
 * Validates `definition` (every issue, SPEC §3 codes), freezes a deep copy of it, compiles it
 * with `type` and wraps the resulting functions so that events going in and commands coming out
 * are checked.
 */
export function compileGraph<State, NodeId extends string = string>(type: GraphType<State>, definition: GraphDefinitionInput<NodeId>): CompiledGraph<State, NodeId> {
  throwIfAny(graphTypeIssues(type));
  assertGraphDefinition(definition);
  // A valid GraphDefinition now; its copy keeps the input's node ids.
  const value = copyFrozenJson<GraphDefinition>(definition) as CompiledDefinition<NodeId>;
  const functions: GraphTypeFunctions<State> = type.compile(value);
  throwIfAny(compiledFunctionIssues(functions));
  const nodeIds: ReadonlySet<string> = new Set(value.nodes.map((node) => node.id));
  const validate = functions.validateNodeResult;
  const inputIsJson = dispatchInputCheckOf(functions) ?? isJsonValue;

  const reduce = (state: State, event: GraphEvent): State => {
    const issue = checkGraphEvent(event);
    if (issue !== null) throw new GraphValidationError([issue]);
    return functions.reduce(state, event);
  };
  const decide = (state: State): GraphCommand[] => {
    const commands = functions.decide(state);
    throwIfAny(validateGraphCommands(commands, nodeIds, inputIsJson));
    return commands;
  };
  const compiled: CompiledGraph<State, NodeId> = {
    kind: type.kind,
    typeVersion: type.version,
    definition: Object.freeze({ value, canonicalJson: canonicalJson(value), digest: digest(value) }),
    initialState: () => functions.initialState(),
    reduce,
    decide,
    describe: () => functions.describe(),
    ...(validate === undefined
      ? {}
      : { validateNodeResult: (nodeId: string, result: unknown) => validate.call(functions, nodeId, result) }),
  };
  builtEventReducers.set(compiled, (state: State, event: GraphEvent): State => {
    const issue = payloadIssue(event.payload);
    if (issue !== null) throw new GraphValidationError([issue]);
    return functions.reduce(state, event);
  });
  return Object.freeze(compiled);
}
