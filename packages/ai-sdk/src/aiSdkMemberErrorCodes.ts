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
