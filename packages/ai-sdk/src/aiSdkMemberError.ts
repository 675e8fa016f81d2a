import { RoundtableError, isRoundtableError } from '@roundtable/core';
import type { RoundtableErrorOptions } from '@roundtable/core';

/** Stable codes of `@roundtable/ai-sdk` errors. */
export const AiSdkMemberErrorCodes = {
  /** `aiSdkMember` was given something other than a compiled team, or a member it does not declare. */
  INVALID_MEMBER: 'INVALID_MEMBER',
  /** An option of `aiSdkMember` is out of range (maxSteps, tokenBudget, retry…). */
  INVALID_MEMBER_OPTIONS: 'INVALID_MEMBER_OPTIONS',
  /** The model's answer did not parse or did not match the member's schema (recorded as the attempt's RESULT_INVALID). */
  RESULT_INVALID: 'RESULT_INVALID',
} as const;

export type AiSdkMemberErrorCode = (typeof AiSdkMemberErrorCodes)[keyof typeof AiSdkMemberErrorCodes];

export class AiSdkMemberError extends RoundtableError {
  declare readonly code: AiSdkMemberErrorCode;

  constructor(code: AiSdkMemberErrorCode, message: string, options: RoundtableErrorOptions = {}) {
    super(code, message, options);
    this.name = 'AiSdkMemberError';
  }
}

/** True when `error` is an `AiSdkMemberError` (from any installed copy), optionally with `code`. */
export function isAiSdkMemberError(error: unknown, code?: AiSdkMemberErrorCode): error is AiSdkMemberError {
  return isRoundtableError(error, code) && Object.values(AiSdkMemberErrorCodes).includes((error as { code: AiSdkMemberErrorCode }).code);
}
