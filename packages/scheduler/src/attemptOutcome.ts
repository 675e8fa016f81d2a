import { canonicalJson, isRoundtableError, utf8ByteLength } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import type { CompiledGraph } from '@roundtable/graph';
import type { NodeAction, NodeBindingObject, NodeContext } from './nodeBinding.js';

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
} as const;

export type AttemptOutcome =
  | { readonly kind: 'completed'; readonly result: Json }
  | { readonly kind: 'failed'; readonly code: string; readonly message: string }
  | { readonly kind: 'paused'; readonly reason: string; readonly request: Json }
  /** The run was aborted: nothing is recorded and the attempt stays unfinished. */
  | { readonly kind: 'aborted' };

const failed = (code: string, message: string): AttemptOutcome => ({ kind: 'failed', code, message });

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'The node threw a value that is not an Error.';
}

/** The canonical JSON text of a value, or null when it is not JSON. */
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

function parseAction(action: unknown): NodeAction | string {
  if (typeof action !== 'object' || action === null) return 'decideAction must return { kind: "allow" | "wait" | "deny" }.';
  const { kind, reason, request } = action as Record<string, unknown>;
  if (kind === 'allow') return { kind };
  if (kind === 'deny' && typeof reason === 'string') return { kind, reason };
  if (kind === 'wait' && typeof reason === 'string' && jsonBytes(request ?? null) !== null) return { kind, reason, request: (request ?? null) as Json };
  return 'decideAction returned an action that is not allow, wait {reason, request} or deny {reason}.';
}

/**
 * Runs one attempt of a node and says what to record. It never throws: every failure of the
 * node or its checks becomes a failure outcome with a stable code. Order: decideAction, input
 * limit, the node under its timeout, output limit, JSON, contract, the graph's own check.
 */
export async function runAttempt(
  graph: CompiledGraph<unknown>,
  binding: NodeBindingObject,
  ctx: Omit<NodeContext, 'signal'>,
  runSignal: AbortSignal,
): Promise<AttemptOutcome> {
  const controller = new AbortController();
  const abortFromRun = () => controller.abort(runSignal.reason);
  if (runSignal.aborted) return { kind: 'aborted' };
  runSignal.addEventListener('abort', abortFromRun, { once: true });
  const context: NodeContext = { ...ctx, signal: controller.signal };
  try {
    if (binding.decideAction) {
      let action: NodeAction | string;
      try {
        action = parseAction(await binding.decideAction(context));
      } catch (error) {
        return failed(AttemptFailureCodes.EFFECT_FAILED, `decideAction failed: ${errorMessage(error)}`);
      }
      if (typeof action === 'string') return failed(AttemptFailureCodes.EFFECT_FAILED, action);
      if (action.kind === 'deny') return failed(AttemptFailureCodes.DENIED, action.reason);
      if (action.kind === 'wait') return { kind: 'paused', reason: action.reason, request: action.request };
    }
    const limits = binding.limits ?? {};
    if (limits.inputBytes !== undefined) {
      const bytes = jsonBytes(ctx.input) ?? Number.POSITIVE_INFINITY;
      if (bytes > limits.inputBytes) return failed(AttemptFailureCodes.INPUT_LIMIT, `The input is ${bytes} bytes, over the limit of ${limits.inputBytes}.`);
    }
    const settled = await runWithTimeout(binding, context, controller, runSignal, limits.timeoutMs);
    if (settled.kind === 'aborted' || runSignal.aborted) return { kind: 'aborted' };
    if (settled.kind === 'timeout') return failed(AttemptFailureCodes.TIMEOUT, `The attempt took longer than ${limits.timeoutMs} ms.`);
    if (settled.kind === 'threw') return failed(AttemptFailureCodes.EFFECT_FAILED, errorMessage(settled.error));
    return checkResult(graph, binding, ctx.nodeId, settled.value);
  } finally {
    runSignal.removeEventListener('abort', abortFromRun);
  }
}

type Settled = { kind: 'value'; value: unknown } | { kind: 'threw'; error: unknown } | { kind: 'timeout' } | { kind: 'aborted' };

/**
 * Runs the node until it settles, its timeout passes or the run is aborted, whichever is first.
 * A node that ignores its signal is left behind: its late result is never recorded.
 */
async function runWithTimeout(
  binding: NodeBindingObject,
  context: NodeContext,
  controller: AbortController,
  runSignal: AbortSignal,
  timeoutMs: number | undefined,
): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Settled>((resolve) => {
    onAbort = () => resolve(runSignal.aborted ? { kind: 'aborted' } : { kind: 'timeout' });
    controller.signal.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) timer = setTimeout(() => controller.abort(new Error(`Timed out after ${timeoutMs} ms.`)), timeoutMs);
  });
  // The node may abort the run synchronously from inside `run`: `stopped` already listens.
  const work = (async (): Promise<Settled> => {
    try {
      return { kind: 'value', value: await binding.run(context) };
    } catch (error) {
      return { kind: 'threw', error };
    }
  })();
  try {
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) controller.signal.removeEventListener('abort', onAbort);
  }
}

function checkResult(graph: CompiledGraph<unknown>, binding: NodeBindingObject, nodeId: string, output: unknown): AttemptOutcome {
  const outputBytes = binding.limits?.outputBytes;
  let text = jsonText(output);
  if (text === null) return failed(AttemptFailureCodes.RESULT_INVALID, 'The result is not a JSON value.');
  const bytes = utf8ByteLength(text);
  if (outputBytes !== undefined && bytes > outputBytes) {
    return failed(AttemptFailureCodes.OUTPUT_LIMIT, `The result is ${bytes} bytes, over the limit of ${outputBytes}.`);
  }
  if (binding.contract) {
    let accepted: unknown;
    try {
      accepted = binding.contract.validate(output);
    } catch (error) {
      return failed(AttemptFailureCodes.RESULT_INVALID, isRoundtableError(error) ? error.message : `The result contract refused it: ${errorMessage(error)}`);
    }
    text = jsonText(accepted);
    if (text === null) return failed(AttemptFailureCodes.RESULT_INVALID, 'The result contract returned a value that is not JSON.');
  }
  // Record a copy made from the text already written: the node keeps its object, and later
  // edits to it must not reach the state.
  const copy = JSON.parse(text) as Json;
  const issue = graph.validateNodeResult?.(nodeId, copy) ?? null;
  if (issue !== null) return failed(AttemptFailureCodes.RESULT_INVALID, `${issue.message}${issue.path ? ` (at ${issue.path})` : ''}`);
  return { kind: 'completed', result: copy };
}
