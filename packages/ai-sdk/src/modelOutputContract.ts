import type { GraphValidationIssue, TeamTurnResult } from '@roundtable/graph';
import type { ResultValidator } from '@roundtable/scheduler';
import type { z } from 'zod';
import { AiSdkMemberError } from './aiSdkMemberError.js';
import type { MemberView } from './memberView.js';

const REFUSED = 'roundtable:modelOutputRefused';

/**
 * The attempt's stand-in result when the model's answer is not a valid turn. `run` builds every
 * result itself from the parsed answer, so only `run` can produce this shape; the binding's
 * contract turns it into RESULT_INVALID with the message, before anything reaches the record.
 */
export function refusal(message: string): TeamTurnResult {
  return { [REFUSED]: message } as unknown as TeamTurnResult;
}

/** The binding's contract: refuses a refusal, passes every real result on to the graph's checks. */
export const modelOutputContract: ResultValidator = Object.freeze({
  validate(value: unknown): unknown {
    if (typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[REFUSED] === 'string') {
      throw new AiSdkMemberError('RESULT_INVALID', (value as Record<string, string>)[REFUSED]!);
    }
    return value;
  },
});

/**
 * Says what was wrong with an answer the AI SDK could not turn into the member's output: not
 * JSON, a post the team refuses (the graph's own message names the room and the member at
 * fault), or the first schema issues with their JSON-pointer paths.
 */
export function diagnoseModelOutput(
  view: MemberView,
  schema: z.ZodType,
  validateNodeResult: (nodeId: string, result: unknown) => GraphValidationIssue | null,
  text: string | undefined,
  sdkMessage: string,
): string {
  if (text === undefined || text.trim() === '') return `The model's answer is empty (${sdkMessage}).`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `The model's answer is not JSON: ${error instanceof Error ? error.message : String(error)}.`;
  }
  const issue = validateNodeResult(view.memberId, parsed);
  if (issue !== null) {
    const at = issue.path ? ` (at ${issue.path}, found ${found(parsed, issue.path)})` : '';
    return `The model's answer breaks the team's rules: ${issue.message}${at}`;
  }
  const checked = schema.safeParse(parsed);
  if (!checked.success) {
    const issues = checked.error.issues.slice(0, 3).map((entry) => `at ${pointer(entry.path)}: ${entry.message}`);
    return `The model's answer does not match member ${JSON.stringify(view.memberId)}'s schema: ${issues.join('; ')}.`;
  }
  return `The model's answer was refused: ${sdkMessage}`;
}

/** A short rendering of the value at a JSON pointer, so a message shows what was wrong. */
function found(root: unknown, path: string): string {
  let value: unknown = root;
  for (const token of path.split('/').slice(1)) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof value !== 'object' || value === null) return 'nothing';
    value = (value as Record<string, unknown>)[key];
  }
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function pointer(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '/';
  return path.map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
