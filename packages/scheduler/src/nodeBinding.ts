import { isRoundtableError } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { GraphExecutionError } from '@roundtable/graph';
import type { CompiledGraph } from '@roundtable/graph';
import { thrownMessage } from './safeText.js';

/** The pause a resumed attempt answers: what `decideAction` (or crash recovery) recorded. */
export interface NodePause {
  readonly reason: string;
  /** `{ kind: 'reconcile-attempt' }` for the pause crash recovery records. */
  readonly request: Json;
}

/** Why the previous attempt of this position failed, when it is being retried. */
export interface NodeFailure {
  readonly code: string;
  readonly message: string;
}

/** What a node receives for one attempt. */
export interface NodeContext {
  /** The dispatch input `decide` produced for this position. */
  readonly input: Json;
  readonly nodeId: string;
  readonly position: string;
  /** Aborted on timeout or when the host aborts the run. */
  readonly signal: AbortSignal;
  /** The host's resume value for this attempt, or null. */
  readonly resume: Json;
  /** This attempt's number: 1 for the first attempt of a position. */
  readonly attempt: number;
  /** The pause the latest resume answered, or null (a first attempt, a retry of a crashed one). */
  readonly pause: NodePause | null;
  /** The failure a `retry` recorded just before this attempt, or null. */
  readonly previousFailure: NodeFailure | null;
}

/** A node's work: returns (or resolves to) its JSON result. */
export type NodeRun = (ctx: NodeContext) => unknown;

/** What `decideAction` may return before an attempt runs. */
export type NodeAction =
  | { readonly kind: 'allow' }
  | { readonly kind: 'wait'; readonly reason: string; readonly request: Json }
  | { readonly kind: 'deny'; readonly reason: string };

export interface NodeLimits {
  /** Abort the attempt and record TIMEOUT after this many milliseconds. */
  readonly timeoutMs?: number;
  /** Largest canonical JSON of the input, in UTF-8 bytes (INPUT_LIMIT). */
  readonly inputBytes?: number;
  /** Largest canonical JSON of the result, in UTF-8 bytes (OUTPUT_LIMIT). */
  readonly outputBytes?: number;
}

/** Retries of a failed attempt (SPEC 11.4). */
export interface NodeRetry {
  /** How many attempts of a position may fail before the failure is final (≥ 1; 1 = no retry). */
  readonly maxAttempts: number;
  /** Failure codes that are retried (default EFFECT_FAILED, TIMEOUT, RESULT_INVALID, OUTPUT_LIMIT). */
  readonly codes?: readonly string[];
  /** Milliseconds to wait between a failure and the next attempt (default 0). */
  readonly backoffMs?: number;
}

/** Anything with a `validate` that returns the accepted value or throws (see @roundtable/contracts). */
export interface ResultValidator {
  validate(value: unknown): unknown;
}

/**
 * A binding object. `run` and `decideAction` are declared as methods, so a binding typed for a
 * narrower context (a `TeamMemberBindingObject`, whose `ctx.input` is a `TeamDispatchInput`)
 * is also a `NodeBindingObject` and fits a plain `nodes` object.
 */
export interface NodeBindingObject {
  run(ctx: NodeContext): unknown;
  readonly contract?: ResultValidator;
  readonly limits?: NodeLimits;
  /** Whether re-running an attempt whose process died is safe (no side effect happens twice). */
  readonly retrySafe?: boolean;
  readonly retry?: NodeRetry;
  decideAction?(ctx: NodeContext): NodeAction | Promise<NodeAction>;
}

export type NodeBinding = NodeRun | NodeBindingObject;

export const DEFAULT_RETRY_CODES: readonly string[] = Object.freeze(['EFFECT_FAILED', 'TIMEOUT', 'RESULT_INVALID', 'OUTPUT_LIMIT']);

/** A binding as the executor keeps it: read once, so a getter on the caller's object runs once. */
export interface ResolvedBinding {
  readonly run: NodeRun;
  readonly contract: ResultValidator | undefined;
  readonly limits: NodeLimits;
  readonly retrySafe: boolean;
  readonly retry: { readonly maxAttempts: number; readonly codes: ReadonlySet<string>; readonly backoffMs: number };
  readonly decideAction: ((ctx: NodeContext) => NodeAction | Promise<NodeAction>) | undefined;
}

function invalidBinding(nodeId: string, problem: string): GraphExecutionError {
  return new GraphExecutionError('INVALID_NODE_BINDING', `The binding of node "${nodeId}" ${problem}`, { details: { nodeId } });
}

const isNonNegativeNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

function resolveRetry(nodeId: string, retry: unknown): ResolvedBinding['retry'] {
  if (retry === undefined) return { maxAttempts: 1, codes: new Set(DEFAULT_RETRY_CODES), backoffMs: 0 };
  if (typeof retry !== 'object' || retry === null) throw invalidBinding(nodeId, 'has a retry that is not { maxAttempts, codes?, backoffMs? }.');
  const { maxAttempts, codes, backoffMs } = retry as Record<string, unknown>;
  if (typeof maxAttempts !== 'number' || !Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw invalidBinding(nodeId, 'has a retry.maxAttempts that is not a positive safe integer.');
  }
  if (codes !== undefined && !(Array.isArray(codes) && codes.every((code) => typeof code === 'string' && code !== ''))) {
    throw invalidBinding(nodeId, 'has a retry.codes that is not an array of failure codes.');
  }
  if (backoffMs !== undefined && !isNonNegativeNumber(backoffMs)) throw invalidBinding(nodeId, 'has a retry.backoffMs that is not a non-negative number.');
  return { maxAttempts, codes: new Set((codes as string[] | undefined) ?? DEFAULT_RETRY_CODES), backoffMs: backoffMs ?? 0 };
}

function resolveLimits(nodeId: string, limits: unknown): NodeLimits {
  if (limits === undefined) return {};
  if (typeof limits !== 'object' || limits === null) throw invalidBinding(nodeId, 'has limits that are not { timeoutMs?, inputBytes?, outputBytes? }.');
  const { timeoutMs, inputBytes, outputBytes } = limits as Record<string, unknown>;
  for (const [name, value] of Object.entries({ timeoutMs, inputBytes, outputBytes })) {
    if (value !== undefined && !isNonNegativeNumber(value)) throw invalidBinding(nodeId, `has a limits.${name} that is not a non-negative number.`);
  }
  return {
    ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }),
    ...(inputBytes === undefined ? {} : { inputBytes: inputBytes as number }),
    ...(outputBytes === undefined ? {} : { outputBytes: outputBytes as number }),
  };
}

function resolveBinding(nodeId: string, binding: unknown): ResolvedBinding {
  if (typeof binding === 'function') {
    return { run: binding as NodeRun, contract: undefined, limits: {}, retrySafe: false, retry: resolveRetry(nodeId, undefined), decideAction: undefined };
  }
  const missing = () => new GraphExecutionError('MISSING_NODE_BINDING', `Node "${nodeId}" has no binding (a function or { run }).`, { details: { nodeId } });
  if (typeof binding !== 'object' || binding === null) throw missing();
  const object = binding as Record<string, unknown>;
  const run = object['run'];
  if (typeof run !== 'function') throw missing();
  const contract = object['contract'];
  if (contract !== undefined && (typeof contract !== 'object' || contract === null || typeof (contract as ResultValidator).validate !== 'function')) {
    throw invalidBinding(nodeId, 'has a contract without a validate function.');
  }
  const decideAction = object['decideAction'];
  if (decideAction !== undefined && typeof decideAction !== 'function') throw invalidBinding(nodeId, 'has a decideAction that is not a function.');
  const retrySafe = object['retrySafe'];
  if (retrySafe !== undefined && typeof retrySafe !== 'boolean') throw invalidBinding(nodeId, 'has a retrySafe that is not a boolean.');
  return {
    run: run.bind(binding) as NodeRun,
    contract: contract as ResultValidator | undefined,
    limits: resolveLimits(nodeId, object['limits']),
    retrySafe: retrySafe === true,
    retry: resolveRetry(nodeId, object['retry']),
    decideAction: decideAction === undefined ? undefined : (decideAction as (ctx: NodeContext) => NodeAction | Promise<NodeAction>).bind(binding),
  };
}

/**
 * Checks `nodes` against the graph's node ids, reading own properties only (a member named
 * `toString` needs a binding of its own): every node needs a binding (MISSING_NODE_BINDING) and
 * every key must name a node (UNKNOWN_NODE_BINDING). Other problems of a binding are
 * INVALID_NODE_BINDING. The result holds each binding read once.
 */
export function resolveBindings(graph: CompiledGraph<unknown>, nodes: unknown): Map<string, ResolvedBinding> {
  const nodeIds = graph.definition.value.nodes.map((node) => node.id);
  if (typeof nodes !== 'object' || nodes === null) {
    throw new GraphExecutionError('MISSING_NODE_BINDING', `nodes must be an object with a binding for every node (${nodeIds.map((id) => JSON.stringify(id)).join(', ')}), not ${nodes === null ? 'null' : typeof nodes}.`, {
      details: { nodeId: nodeIds[0] ?? null },
    });
  }
  const known = new Set(nodeIds);
  let keys: string[];
  try {
    keys = Object.keys(nodes);
  } catch (error) {
    throw new GraphExecutionError('MISSING_NODE_BINDING', `nodes cannot be read: ${thrownMessage(error)}`, { details: { nodeId: nodeIds[0] ?? null }, cause: error });
  }
  for (const key of keys) {
    if (!known.has(key)) {
      throw new GraphExecutionError('UNKNOWN_NODE_BINDING', `nodes has a binding for ${JSON.stringify(key)}, which is not a node of this graph (nodes: ${nodeIds.map((id) => JSON.stringify(id)).join(', ')}).`, {
        details: { nodeId: key },
      });
    }
  }
  const bindings = new Map<string, ResolvedBinding>();
  for (const nodeId of nodeIds) {
    try {
      const descriptor = Object.getOwnPropertyDescriptor(nodes, nodeId);
      const binding: unknown = descriptor === undefined ? undefined : 'value' in descriptor ? descriptor.value : (descriptor.get?.call(nodes) as unknown);
      bindings.set(nodeId, resolveBinding(nodeId, binding));
    } catch (error) {
      if (isRoundtableError(error)) throw error;
      throw new GraphExecutionError('INVALID_NODE_BINDING', `The binding of node "${nodeId}" cannot be read: ${thrownMessage(error)}`, { details: { nodeId }, cause: error });
    }
  }
  return bindings;
}
