import { RoundtableError, isRoundtableError } from '@roundtable/core';
import type { RoundtableErrorOptions } from '@roundtable/core';

/**
 * Codes `team(config)`, `run` and `resume` throw. Renaming one is a breaking change. Codes a
 * job ends with (its `failure.code`) are in `TeamJobFailureCodes`.
 */
export const TeamErrorCodes = {
  /** The config, or the run id, is not one `team` accepts; nothing was created. */
  TEAM_CONFIG: 'TEAM_CONFIG',
  /** `resume` was given an answer that is not `{ approved: boolean, note?: string }`. */
  INVALID_REVIEW_ANSWER: 'INVALID_REVIEW_ANSWER',
  /** A git command the runtime needs failed; nothing about it was recorded, so the job can be resumed. */
  GIT_FAILED: 'GIT_FAILED',
} as const;

export type TeamErrorCode = (typeof TeamErrorCodes)[keyof typeof TeamErrorCodes];

/** How a job that did not pass ended (`TeamJobResult.failure.code`). */
export const TeamJobFailureCodes = {
  /** At least one agent returned `fail` or its attempt failed; nothing was integrated. */
  AGENT_FAILED: 'AGENT_FAILED',
  /** Merging the agents' branches conflicted; `failure.agents` names the agents involved. */
  INTEGRATION_CONFLICT: 'INTEGRATION_CONFLICT',
  /** The integration attempt itself failed (for example, its worktree could not be made). */
  INTEGRATION_FAILED: 'INTEGRATION_FAILED',
  /** The review did not pass; the integration branch is kept. */
  REVIEW_FAILED: 'REVIEW_FAILED',
} as const;

export type TeamJobFailureCode = (typeof TeamJobFailureCodes)[keyof typeof TeamJobFailureCodes];

const TEAM_ERROR = Symbol.for('@roundtable/team/error');

/** An error thrown by `@roundtable/team`; check it with `isTeamError`. */
export class TeamError extends RoundtableError {
  constructor(code: TeamErrorCode, message: string, options: RoundtableErrorOptions = {}) {
    super(code, message, options);
    this.name = 'TeamError';
    Object.defineProperty(this, TEAM_ERROR, { value: true });
  }
}

/** True when `error` is a `TeamError` (from any installed copy), optionally with `code`. */
export function isTeamError(error: unknown, code?: TeamErrorCode): error is TeamError {
  if (!isRoundtableError(error)) return false;
  if ((error as unknown as Record<symbol, unknown>)[TEAM_ERROR] !== true) return false;
  return code === undefined || error.code === code;
}

export function configError(path: string, message: string): TeamError {
  return new TeamError('TEAM_CONFIG', `${message}${path === '' ? '' : ` (at ${path})`}`, { details: { path } });
}
