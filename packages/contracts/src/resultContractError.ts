import { errorGuard } from '@roundtable/core';
import { RoundtableError } from '@roundtable/core';
import type { GraphValidationIssue } from '@roundtable/graph';

export const ResultContractErrorCodes = {
  RESULT_INVALID: 'RESULT_INVALID',
  INVALID_CONTRACT: 'INVALID_CONTRACT',
} as const;

export type ResultContractErrorCode = (typeof ResultContractErrorCodes)[keyof typeof ResultContractErrorCodes];

/**
 * One reason a value broke a contract; `path` is a JSON pointer into the value. The same
 * `{ code, path, message }` as graph's `GraphValidationIssueSchema`, whose issues the team
 * contract passes on as they are.
 */
export type ResultContractIssue = Readonly<GraphValidationIssue>;

/** A value a result contract refused (RESULT_INVALID), or a contract that cannot be defined (INVALID_CONTRACT). */
export class ResultContractError extends RoundtableError<ResultContractErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/contracts/result-contract-error');
  readonly issues: readonly ResultContractIssue[];

  constructor(code: ResultContractErrorCode, message: string, issues: readonly ResultContractIssue[] = []) {
    super(code, message, { details: { issues } });
    this.name = 'ResultContractError';
    this.issues = issues;
  }
}

/** True when `error` is a `ResultContractError` (from any installed copy), optionally with `code`. */
export const isResultContractError = errorGuard(ResultContractError);
