import { RoundtableError, errorGuard } from '@roundtable/core';
import { z } from 'zod';

/** Stable error and issue codes of `@roundtable/graph`. Renaming one is a breaking change. */
export const GraphErrorCodes = {
  INVALID_ID: 'INVALID_ID',
  DUPLICATE_NODE_ID: 'DUPLICATE_NODE_ID',
  DUPLICATE_EDGE_ID: 'DUPLICATE_EDGE_ID',
  INVALID_VERSION: 'INVALID_VERSION',
  UNKNOWN_SOURCE_NODE: 'UNKNOWN_SOURCE_NODE',
  UNKNOWN_TARGET_NODE: 'UNKNOWN_TARGET_NODE',
  INVALID_JSON_VALUE: 'INVALID_JSON_VALUE',
  INVALID_DEFINITION: 'INVALID_DEFINITION',
  INVALID_GRAPH_TYPE: 'INVALID_GRAPH_TYPE',
  INVALID_GRAPH_COMMAND: 'INVALID_GRAPH_COMMAND',
  INVALID_TEAM: 'INVALID_TEAM',
  RESULT_INVALID: 'RESULT_INVALID',
} as const;

export type GraphErrorCode = (typeof GraphErrorCodes)[keyof typeof GraphErrorCodes];

/** One problem found by a validation: `path` is a JSON pointer into the value that was checked. */
export const GraphValidationIssueSchema = z.strictObject({
  code: z.string(),
  path: z.string(),
  message: z.string(),
});

export type GraphValidationIssue = z.infer<typeof GraphValidationIssueSchema>;

function summarize(issues: readonly GraphValidationIssue[]): string {
  const first = issues[0];
  if (first === undefined) return 'Validation failed.';
  const where = first.path === '' ? '' : ` (at ${first.path})`;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  return `${first.message}${where}${more}`;
}

/**
 * A definition, graph type, event or command list that failed validation. `issues` lists every
 * problem found (never empty); `code` is the first issue's code; `details.issues` repeats them.
 */
export class GraphValidationError extends RoundtableError {
  static override readonly marker: symbol = Symbol.for('@roundtable/graph/validation-error');
  readonly issues: GraphValidationIssue[];

  constructor(issues: readonly GraphValidationIssue[]) {
    const copied = issues.length > 0
      ? issues.map((issue) => Object.freeze({ code: issue.code, path: issue.path, message: issue.message }))
      : [{ code: GraphErrorCodes.INVALID_DEFINITION, path: '', message: 'Validation failed.' }];
    Object.freeze(copied);
    super(copied[0]!.code, summarize(copied), { details: { issues: copied } });
    this.name = 'GraphValidationError';
    this.issues = copied;
  }
}

/**
 * True when `error` is a `GraphValidationError` (from any installed copy of this package),
 * optionally with `code`. Checks a `Symbol.for` marker, not `instanceof`.
 */
export const isGraphValidationError = errorGuard(GraphValidationError);

/** Builds one issue. */
export function graphIssue(code: string, path: string, message: string): GraphValidationIssue {
  return { code, path, message };
}
