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

/** The AI SDK's usage of one `generateText` call (all steps) as recorded JSON. */
export function turnUsage(usage: { inputTokens?: number | undefined; outputTokens?: number | undefined; totalTokens?: number | undefined }): TurnUsage {
  const inputTokens = count(usage.inputTokens);
  const outputTokens = count(usage.outputTokens);
  const reported = count(usage.totalTokens);
  const totalTokens = reported ?? (inputTokens !== null && outputTokens !== null ? inputTokens + outputTokens : null);
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
  return {
    inputTokens: count(usage['inputTokens']) ?? 0,
    outputTokens: count(usage['outputTokens']) ?? 0,
    totalTokens: count(usage['totalTokens']) ?? 0,
  };
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
