import type { Json } from '@roundtable/core';
import type { TeamJobPlan } from './teamJobPlan.js';

export type TeamJobStepStatus = 'pending' | 'in-flight' | 'paused' | 'completed' | 'failed';

/** Where one node of a team job stands, derived from the record. */
export interface TeamJobStepState {
  readonly status: TeamJobStepStatus;
  /** The recorded result of a completed step (checked against its schema), else null. */
  readonly result: Json;
  /** The recorded failure of a failed attempt, else null. */
  readonly failure: { readonly code: string; readonly message: string } | null;
  readonly pause: { readonly reason: string; readonly request: Json } | null;
}

/** A team job's state: one step per node. */
export interface TeamJobState {
  readonly steps: Readonly<Record<string, TeamJobStepState>>;
}

const PENDING: TeamJobStepState = Object.freeze({ status: 'pending', result: null, failure: null, pause: null });

export function initialTeamJobState(plan: TeamJobPlan): TeamJobState {
  const steps: Record<string, TeamJobStepState> = {};
  for (const nodeId of plan.kinds.keys()) steps[nodeId] = PENDING;
  return { steps };
}
