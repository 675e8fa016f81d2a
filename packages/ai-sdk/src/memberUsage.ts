import type { Json } from '@roundtable/core';
import type { TeamTurnResult } from '@roundtable/graph';

/** Token counts of one turn (null where the provider did not report a count). */
export interface TurnUsage {
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly totalTokens: number | null;
}

/** Token counts summed over a member's successful turns; an unreported count adds 0. */
export interface MemberUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
}

export const NO_USAGE: MemberUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** What the AI SDK reports of a call's usage (its `LanguageModelUsage`), as far as a total is made of it. */
export interface ReportedUsage {
  readonly inputTokens?: number | undefined;
  readonly inputTokenDetails?: { readonly noCacheTokens?: number | undefined; readonly cacheReadTokens?: number | undefined; readonly cacheWriteTokens?: number | undefined } | undefined;
  readonly outputTokens?: number | undefined;
  readonly outputTokenDetails?: { readonly textTokens?: number | undefined; readonly reasoningTokens?: number | undefined } | undefined;
  readonly totalTokens?: number | undefined;
}

/** The sum of the counts that were reported, or null when none was. */
function reportedSum(...values: readonly unknown[]): number | null {
  let sum: number | null = null;
  for (const value of values) {
    const counted = count(value);
    if (counted !== null) sum = (sum ?? 0) + counted;
  }
  return sum;
}

/**
 * The AI SDK's usage of one `generateText` call (all steps) as recorded JSON, counting what the
 * provider reported: an input or output count is its total, or the sum of its details when the
 * provider gave only those (no-cache, cache read and write; text and reasoning); the total is
 * the reported total, or the sum of the parts when there is none, and never less than the parts.
 * So a provider that reports only output tokens, or only details, still spends a budget. Null
 * only where the provider reported nothing at all.
 */
export function turnUsage(usage: ReportedUsage): TurnUsage {
  const input = usage.inputTokenDetails;
  const output = usage.outputTokenDetails;
  const inputTokens = count(usage.inputTokens) ?? reportedSum(input?.noCacheTokens, input?.cacheReadTokens, input?.cacheWriteTokens);
  const outputTokens = count(usage.outputTokens) ?? reportedSum(output?.textTokens, output?.reasoningTokens);
  const parts = reportedSum(inputTokens, outputTokens);
  const reported = count(usage.totalTokens);
  const totalTokens = reported === null ? parts : Math.max(reported, parts ?? 0);
  return { inputTokens, outputTokens, totalTokens };
}

/**
 * The member's usage so far, read from its own previous result (the dispatch input's `result`),
 * so it is derived from the record and the same on every replay. A previous result that holds
 * no usage (none yet, or written by something else) counts as zero.
 */
export function previousMemberUsage(previous: TeamTurnResult | null): MemberUsage {
  const data = previous?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return NO_USAGE;
  const usage = data['memberUsage'];
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return NO_USAGE;
  const inputTokens = count(usage['inputTokens']) ?? 0;
  const outputTokens = count(usage['outputTokens']) ?? 0;
  // A record written before totals counted the parts may hold a total of 0 beside them.
  return { inputTokens, outputTokens, totalTokens: Math.max(count(usage['totalTokens']) ?? 0, inputTokens + outputTokens) };
}

export function addUsage(total: MemberUsage, turn: TurnUsage): MemberUsage {
  return {
    inputTokens: total.inputTokens + (turn.inputTokens ?? 0),
    outputTokens: total.outputTokens + (turn.outputTokens ?? 0),
    totalTokens: total.totalTokens + (turn.totalTokens ?? 0),
  };
}

export function usageJson(usage: TurnUsage | MemberUsage): Json {
  return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens };
}
