import { RoundtableError, errorGuard } from '@roundtable/core';
import type { AiSdkMemberErrorCode } from './aiSdkMemberErrorCodes.js';

export { AiSdkMemberErrorCodes } from './aiSdkMemberErrorCodes.js';
export type { AiSdkMemberErrorCode } from './aiSdkMemberErrorCodes.js';

export class AiSdkMemberError extends RoundtableError<AiSdkMemberErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/ai-sdk/error');
  override name = 'AiSdkMemberError';
}

/** True when `error` is an `AiSdkMemberError` (from any installed copy), optionally with `code`. */
export const isAiSdkMemberError = errorGuard(AiSdkMemberError);
