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
  /**
   * A ref the job must make or move exists and this job did not make it, or was moved since the
   * job left it (`details.ref`, `details.commit`). The job moves and deletes no such ref: nothing
   * was created or moved for it.
   */
  REF_EXISTS: 'REF_EXISTS',
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
