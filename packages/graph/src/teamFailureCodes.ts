/** The codes of the `fail` commands and member failures the team graph type produces. */
export const TeamFailureCodes = {
  /** A member failed (any code); the message names every failed member. */
  TEAM_NODE_FAILED: 'TEAM_NODE_FAILED',
  /** A member was asked for a turn beyond `maxTurnsPerMember`. */
  TEAM_TURN_LIMIT: 'TEAM_TURN_LIMIT',
  /** A member's completed result broke the rules of `TeamTurnResult` (its `failureCode`). */
  RESULT_INVALID: 'RESULT_INVALID',
} as const;

export type TeamFailureCode = (typeof TeamFailureCodes)[keyof typeof TeamFailureCodes];
