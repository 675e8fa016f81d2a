import { canonicalJson, freezeJson, isRoundtableError, privateSlot, utf8ByteLength } from '@roundtable/core';
import type { FrozenJson, Json } from '@roundtable/core';
import { findJsonProblem } from '@roundtable/graph';
import type { CompiledGraph } from '@roundtable/graph';
import type { NodeAction, NodeContext, ResolvedBinding } from './nodeBinding.js';
import { AttemptAbort } from './attemptSignal.js';
import type { AttemptStop } from './attemptSignal.js';
import { recordableText, thrownMessage } from './safeText.js';

/** Failure codes an attempt records in `graph:node-failed`. */
export const AttemptFailureCodes = {
  DENIED: 'DENIED',
  INPUT_LIMIT: 'INPUT_LIMIT',
  TIMEOUT: 'TIMEOUT',
  EFFECT_FAILED: 'EFFECT_FAILED',
  OUTPUT_LIMIT: 'OUTPUT_LIMIT',
  RESULT_INVALID: 'RESULT_INVALID',
  RESULT_TOO_LARGE: 'RESULT_TOO_LARGE',
  KNOWN_SECRET: 'KNOWN_SECRET',
  /** The run was cancelled while the attempt ran, and the attempt did not complete (SPEC 20). */
  CANCELLED: 'CANCELLED',
} as const;

export type AttemptOutcome =
  | { readonly kind: 'completed'; readonly result: Json }
  | { readonly kind: 'failed'; readonly code: string; readonly message: string }
  | { readonly kind: 'paused'; readonly reason: string; readonly request: Json }
  /** The run was aborted: nothing is recorded and the attempt stays unfinished. */
  | { readonly kind: 'aborted' };

/** Every failure message passes through here, so none can carry a lone surrogate into the record. */
const failed = (code: string, message: string): AttemptOutcome => ({ kind: 'failed', code, message: recordableText(message) });

/** The canonical JSON text of a value, or null when it is not JSON (or reading it throws). */
function jsonText(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}

function jsonBytes(value: unknown): number | null {
  const text = jsonText(value);
  return text === null ? null : utf8ByteLength(text);
}

/** `<what> is not JSON at <path>: found <what was there>.` (SPEC 11.5). */
function notJsonMessage(what: string, value: unknown): string {
  const problem = findJsonProblem(value);
  if (problem === null) return `${what} is not JSON.`;
  const location = problem.path === '' ? '' : ` at ${problem.path}`;
  const detail = problem.found === 'a value that is not JSON' ? problem.message : `found ${problem.found}.`;
  return `${what} is not JSON${location}: ${detail}`;
}

/** Reads what `decideAction` returned; property reads may throw, and the caller turns that into a failure. */
function parseAction(action: unknown): NodeAction | AttemptOutcome {
  const shape = 'decideAction must return { kind: "allow" } | { kind: "wait", reason, request } | { kind: "deny", reason }';
  if (typeof action !== 'object' || action === null) return failed(AttemptFailureCodes.EFFECT_FAILED, `${shape}, not ${action === null ? 'null' : typeof action}.`);
  const { kind, reason, request } = action as Record<string, unknown>;
  if (kind === 'allow') return { kind };
  if (kind !== 'deny' && kind !== 'wait') return failed(AttemptFailureCodes.EFFECT_FAILED, `${shape}; its kind was ${typeof kind === 'string' ? JSON.stringify(kind) : typeof kind}.`);
  if (typeof reason !== 'string') return failed(AttemptFailureCodes.EFFECT_FAILED, `decideAction returned ${kind} with a reason that is not a string.`);
  if (kind === 'deny') return { kind, reason: recordableText(reason) };
  const text = jsonText(request ?? null);
  if (text === null) return failed(AttemptFailureCodes.EFFECT_FAILED, notJsonMessage('The request of decideAction\'s wait', request));
  // The recorded (canonical) form: the same value on the first run and on every replay.
  return { kind, reason: recordableText(reason), request: JSON.parse(text) as Json };
}

/** What is passed to `runAttempt`: the context without its signal, which the attempt owns. */
export type AttemptContext = Omit<NodeContext, 'signal'>;

const ABORTED: AttemptOutcome = Object.freeze({ kind: 'aborted' });

/**
 * The attempt a member context belongs to, kept on the context in a private slot (core's
 * `privateSlot`, invisible to every reflection API): the one `signal` getter, shared by every
 * context, finds its attempt's signal there. A getter written in each context's literal would be
 * a new closure and accessor per attempt, which makes V8 give every context a map of its own
 * (about 0.6 µs per attempt, measured); one shared accessor keeps one map for all of them.
 */
const contextAbort = privateSlot<AttemptAbort>();

const SIGNAL_PROPERTY: PropertyDescriptor = Object.freeze({
  get(this: object): AbortSignal | undefined {
    return contextAbort.get(this)?.signal;
  },
  enumerable: true,
  configurable: false,
});

/**
 * The context a member receives: frozen, its `signal` made on first read (a member that never
 * reads it costs no AbortController), an own enumerable property like the others so that a
 * spread copy of the context keeps it.
 */
function memberContext(ctx: AttemptContext, abort: AttemptAbort): NodeContext {
  const context = {
    input: ctx.input,
    nodeId: ctx.nodeId,
    position: ctx.position,
    resume: ctx.resume,
    attempt: ctx.attempt,
    pause: ctx.pause,
    previousFailure: ctx.previousFailure,
  };
  contextAbort.add(context, abort);
  Object.defineProperty(context, 'signal', SIGNAL_PROPERTY);
  return Object.freeze(context) as NodeContext;
}

/**
 * Runs one attempt of a node and says what to record. It never throws: every failure of the
 * node or its checks becomes a failure outcome with a stable code and a well-formed message,
 * whatever the node or its hooks throw or return. Order: decideAction, input limit, the node
 * under its timeout, output limit, JSON, contract, the graph's own check. A member that returns
 * a value (not a promise) is checked at once: no race, timer or listener is set up for it.
 */
export async function runAttempt(graph: CompiledGraph<unknown>, binding: ResolvedBinding, ctx: AttemptContext, runSignal: AbortSignal): Promise<AttemptOutcome> {
  if (runSignal.aborted) return ABORTED;
  const limits = binding.limits;
  const abort = new AttemptAbort(runSignal, limits.timeoutMs);
  const context = memberContext(ctx, abort);
  try {
    if (binding.decideAction) {
      let action: NodeAction | AttemptOutcome;
      try {
        action = parseAction(await binding.decideAction(context));
      } catch (error) {
        return failed(AttemptFailureCodes.EFFECT_FAILED, `decideAction failed: ${thrownMessage(error)}`);
      }
      if (action.kind === 'failed') return action;
      if (action.kind === 'deny') return failed(AttemptFailureCodes.DENIED, action.reason);
      if (action.kind === 'wait') return { kind: 'paused', reason: action.reason, request: action.request };
    }
    if (limits.inputBytes !== undefined) {
      const bytes = jsonBytes(ctx.input) ?? Number.POSITIVE_INFINITY;
      if (bytes > limits.inputBytes) return failed(AttemptFailureCodes.INPUT_LIMIT, `The input is ${bytes} bytes, over the limit of ${limits.inputBytes}.`);
    }
    // The run may have been aborted while decideAction was pending: the member must not start.
    if (runSignal.aborted) return ABORTED;
    abort.startTimer();
    let settled: Settled | Pending | AttemptStop = runMember(binding, context);
    // The node may abort the run synchronously from inside `run`.
    if (runSignal.aborted) return ABORTED;
    if (settled.kind === 'pending') settled = await Promise.race([settled.work, abort.stopped()]);
    if (settled === 'aborted' || runSignal.aborted) return ABORTED;
    if (settled === 'timeout') return failed(AttemptFailureCodes.TIMEOUT, `The attempt took longer than ${limits.timeoutMs} ms.`);
    if (settled.kind === 'threw') return failed(AttemptFailureCodes.EFFECT_FAILED, thrownMessage(settled.error));
    return checkResult(graph, binding, ctx.nodeId, settled.value);
  } finally {
    abort.end();
  }
}

type Settled = { readonly kind: 'value'; readonly value: unknown } | { readonly kind: 'threw'; readonly error: unknown };
type Pending = { readonly kind: 'pending'; readonly work: Promise<Settled> };

/**
 * Calls the member. A value that is not a thenable is its result at once; a thenable is
 * followed (its `then` read once, as `await` would) into `work`, which the caller races against
 * the attempt's stop. A node that ignores its signal is left behind: its late result is never
 * recorded.
 */
function runMember(binding: ResolvedBinding, context: NodeContext): Settled | Pending {
  let value: unknown;
  let then: unknown;
  try {
    value = binding.run(context);
    then = (typeof value === 'object' && value !== null) || typeof value === 'function' ? (value as { then?: unknown }).then : undefined;
  } catch (error) {
    return { kind: 'threw', error };
  }
  if (typeof then !== 'function') return { kind: 'value', value };
  const followed = new Promise<unknown>((resolve, reject) => {
    (then as (onFulfilled: (value: unknown) => void, onRejected: (error: unknown) => void) => unknown).call(value, resolve, reject);
  });
  const work = followed.then(
    (result): Settled => ({ kind: 'value', value: result }),
    (error: unknown): Settled => ({ kind: 'threw', error }),
  );
  return { kind: 'pending', work };
}

function contractRefusal(error: unknown): string {
  const message = thrownMessage(error);
  try {
    return isRoundtableError(error) ? message : `The result contract refused it: ${message}`;
  } catch {
    return `The result contract refused it: ${message}`;
  }
}

function graphRefusal(graph: CompiledGraph<unknown>, nodeId: string, result: Json): string | null {
  try {
    const issue: unknown = graph.validateNodeResult?.(nodeId, result) ?? null;
    if (issue === null) return null;
    const { message, path } = issue as { message?: unknown; path?: unknown };
    const text = typeof message === 'string' ? message : 'The graph refused the result.';
    return typeof path === 'string' && path !== '' ? `${text} (at ${path})` : text;
  } catch (error) {
    return `The graph's result check failed: ${thrownMessage(error)}`;
  }
}

function checkResult(graph: CompiledGraph<unknown>, binding: ResolvedBinding, nodeId: string, output: unknown): AttemptOutcome {
  const outputBytes = binding.limits.outputBytes;
  // One walk checks, measures, canonicalises and freezes the result; every later stage (the
  // storage preflight, secret screening, the reducer, input building) reuses that work. The
  // node keeps its object: later edits to it cannot reach the state.
  let frozen = frozenResult(output);
  if (frozen === null) return failed(AttemptFailureCodes.RESULT_INVALID, notJsonMessage('The result', output));
  if (outputBytes !== undefined && frozen.bytes > outputBytes) {
    return failed(AttemptFailureCodes.OUTPUT_LIMIT, `The result is ${frozen.bytes} bytes, over the limit of ${outputBytes}.`);
  }
  if (binding.contract) {
    let accepted: unknown;
    try {
      accepted = binding.contract.validate(output);
    } catch (error) {
      return failed(AttemptFailureCodes.RESULT_INVALID, contractRefusal(error));
    }
    frozen = frozenResult(accepted);
    if (frozen === null) return failed(AttemptFailureCodes.RESULT_INVALID, notJsonMessage('The value the result contract returned', accepted));
  }
  const refusal = graphRefusal(graph, nodeId, frozen.value);
  if (refusal !== null) return failed(AttemptFailureCodes.RESULT_INVALID, refusal);
  return { kind: 'completed', result: frozen.value };
}

/** The frozen canonical copy of a value, or null when it is not JSON (or reading it throws). */
function frozenResult(value: unknown): FrozenJson | null {
  try {
    return freezeJson(value);
  } catch {
    return null;
  }
}
