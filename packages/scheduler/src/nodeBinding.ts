import type { Json } from '@roundtable/core';

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

/** Anything with a `validate` that returns the accepted value or throws (see @roundtable/contracts). */
export interface ResultValidator {
  validate(value: unknown): unknown;
}

export interface NodeBindingObject {
  readonly run: NodeRun;
  readonly contract?: ResultValidator;
  readonly limits?: NodeLimits;
  /** Whether re-running an attempt whose process died is safe (no side effect happens twice). */
  readonly retrySafe?: boolean;
  readonly decideAction?: (ctx: NodeContext) => NodeAction | Promise<NodeAction>;
}

export type NodeBinding = NodeRun | NodeBindingObject;

export function normalizeBinding(binding: NodeBinding): NodeBindingObject {
  return typeof binding === 'function' ? { run: binding } : binding;
}
