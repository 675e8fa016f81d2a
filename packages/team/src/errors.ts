import { RoundtableError, errorGuard } from '@roundtable/core';
import type { TeamErrorCode } from './teamErrorCodes.js';

export { TeamErrorCodes, TeamJobFailureCodes } from './teamErrorCodes.js';
export type { TeamErrorCode, TeamJobFailureCode } from './teamErrorCodes.js';

/** An error thrown by `@roundtable/team`; check it with `isTeamError`. */
export class TeamError extends RoundtableError<TeamErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/team/error');
  override name = 'TeamError';
}

/** True when `error` is a `TeamError` (from any installed copy), optionally with `code`. */
export const isTeamError = errorGuard(TeamError);

export function configError(path: string, message: string): TeamError {
  return new TeamError('TEAM_CONFIG', `${message}${path === '' ? '' : ` (at ${path})`}`, { details: { path } });
}
