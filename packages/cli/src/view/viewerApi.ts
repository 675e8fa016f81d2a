import type { TeamMemberState, TeamMessage } from '@roundtable/graph';
import type { StoredEvent } from '@roundtable/storage';
import type { RecordProblem, RunStatus } from '../runInspector.js';

/** `GET /api/runs/:runId/rooms`: each room's lines as the projector writes them. */
export interface RoomsResponse {
  readonly revision: number;
  readonly problem: RecordProblem | null;
  readonly rooms: readonly { readonly roomId: string; readonly text: string }[];
}

/** `GET /api/runs/:runId/events?after=`: the raw record, and the damage that stopped the read, if any. */
export interface EventsResponse {
  readonly events: readonly StoredEvent[];
  readonly problem: { readonly code: string; readonly message: string } | null;
}

/** `GET /api/runs/:runId/state?revision=`: the team state after that revision. */
export interface StateResponse {
  readonly revision: number;
  readonly head: number;
  readonly status: RunStatus;
  readonly problem: RecordProblem | null;
  readonly members: readonly TeamMemberState[] | null;
  readonly messages: readonly TeamMessage[] | null;
}
