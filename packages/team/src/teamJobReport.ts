import type { Json } from '@roundtable/core';
import { integrationBranch } from './teamJobPlan.js';
import type { TeamJobPlan } from './teamJobPlan.js';
import type { AgentNodeResult, CallbackNodeResult, IntegrationNodeResult, ReviewerNodeResult } from './teamJobSchemas.js';
import type { TeamJobState, TeamJobStepState } from './teamJobState.js';

export interface StepError {
  readonly code: string;
  readonly message: string;
}

/** One agent in a job's result, in declaration order. */
export interface TeamJobAgentReport {
  readonly name: string;
  readonly role: string;
  /** `pass` or `fail` once recorded; null while the agent has no recorded outcome. */
  readonly outcome: 'pass' | 'fail' | null;
  /** The branch head after the runtime's commit; null when nothing changed, it failed, or it has not finished. */
  readonly commit: string | null;
  readonly branch: string;
  readonly summary: string | null;
  readonly data: Json;
  /** The failed attempt's code and message (for example EFFECT_FAILED when `run` threw), else null. */
  readonly error: StepError | null;
}

export interface TeamJobIntegrationReport {
  readonly branch: string;
  readonly commit: string | null;
  /** Agents whose commits were merged, in declaration order. */
  readonly merged: readonly string[];
  readonly conflict: { readonly agents: readonly string[]; readonly files: readonly string[] } | null;
  readonly error: StepError | null;
}

export interface TeamJobReviewerReport {
  readonly name: string;
  readonly outcome: 'pass' | 'fail' | null;
  readonly summary: string | null;
}

export type TeamJobReviewReport =
  | {
      readonly kind: 'panel';
      /** `pass`, `fail`, or null while the review has not finished. */
      readonly verdict: 'pass' | 'fail' | null;
      readonly threshold: number;
      readonly passes: number;
      readonly reviewers: readonly TeamJobReviewerReport[];
    }
  | {
      readonly kind: 'callback';
      readonly verdict: 'pass' | 'fail' | null;
      readonly reason: string;
      readonly request: Json;
      readonly approved: boolean | null;
      readonly note: string | null;
    };

/** The part of a job's result that is derived from the record alone (the `complete` output). */
export interface TeamJobReport {
  readonly summary: string;
  readonly task: string;
  /** The job's identity, drawn when it started; its commits' `Roundtable-Job` trailer. */
  readonly jobId: string;
  readonly startCommit: string;
  readonly agents: readonly TeamJobAgentReport[];
  /** True only when the agents' branches were merged into the integration branch. */
  readonly integrated: boolean;
  /** Null until the integration ran (and always when `integrate` is false). */
  readonly integration: TeamJobIntegrationReport | null;
  /** Null when the job has no review or the review has not started. */
  readonly review: TeamJobReviewReport | null;
}

const errorOf = (step: TeamJobStepState): StepError | null => (step.status === 'failed' ? step.failure : null);

function agentReport(step: TeamJobStepState, agent: TeamJobPlan['agents'][number]): TeamJobAgentReport {
  const base = { name: agent.name, role: agent.role, branch: agent.branch };
  if (step.status === 'completed') {
    const result = step.result as AgentNodeResult;
    return { ...base, outcome: result.status, commit: result.commit, summary: result.summary, data: result.data, error: null };
  }
  if (step.status === 'failed') return { ...base, outcome: 'fail', commit: null, summary: null, data: null, error: errorOf(step) };
  return { ...base, outcome: null, commit: null, summary: null, data: null, error: null };
}

function integrationReport(plan: TeamJobPlan, state: TeamJobState): TeamJobIntegrationReport | null {
  if (plan.integration === null) return null;
  const step = state.steps[plan.integration]!;
  if (step.status === 'completed') {
    const result = step.result as IntegrationNodeResult;
    return { branch: result.branch, commit: result.commit, merged: result.merged, conflict: result.conflict, error: null };
  }
  if (step.status === 'failed') return { branch: integrationBranch(plan.data.runId), commit: null, merged: [], conflict: null, error: errorOf(step) };
  return null;
}

function reviewerReport(step: TeamJobStepState, name: string): TeamJobReviewerReport {
  if (step.status === 'completed') {
    const result = step.result as ReviewerNodeResult;
    return { name, outcome: result.status, summary: result.summary };
  }
  if (step.status === 'failed') return { name, outcome: 'fail', summary: `${step.failure!.code}: ${step.failure!.message}` };
  return { name, outcome: null, summary: null };
}

function reviewReport(plan: TeamJobPlan, state: TeamJobState): TeamJobReviewReport | null {
  const review = plan.data.review;
  if (review === null) return null;
  if (review.kind === 'panel') {
    const steps = plan.reviewers.map((reviewer) => state.steps[reviewer.nodeId]!);
    if (steps.every((step) => step.status === 'pending')) return null;
    const reviewers = plan.reviewers.map((reviewer, index) => reviewerReport(steps[index]!, reviewer.name));
    const passes = reviewers.filter((reviewer) => reviewer.outcome === 'pass').length;
    const settled = reviewers.every((reviewer) => reviewer.outcome !== null);
    return { kind: 'panel', verdict: settled ? (passes >= review.threshold ? 'pass' : 'fail') : null, threshold: review.threshold, passes, reviewers };
  }
  const step = state.steps[plan.callback!]!;
  if (step.status === 'pending') return null;
  const base = { kind: 'callback' as const, reason: review.reason, request: review.request };
  if (step.status === 'completed') {
    const answer = step.result as CallbackNodeResult;
    return { ...base, verdict: answer.approved ? 'pass' : 'fail', approved: answer.approved, note: answer.note };
  }
  if (step.status === 'failed') return { ...base, verdict: 'fail', approved: null, note: `${step.failure!.code}: ${step.failure!.message}` };
  return { ...base, verdict: null, approved: null, note: null };
}

function summarize(report: Omit<TeamJobReport, 'summary'>): string {
  const passed = report.agents.filter((agent) => agent.outcome === 'pass').length;
  const parts = [`${passed} of ${report.agents.length} agents passed`];
  if (report.integration !== null) parts.push(report.integrated ? `integrated into ${report.integration.branch}` : 'not integrated');
  if (report.review !== null && report.review.verdict !== null) parts.push(`review ${report.review.verdict === 'pass' ? 'passed' : 'failed'}`);
  return `${parts.join('; ')}.`;
}

/** What the record says about a job so far: every agent, the integration and the review. */
export function teamJobReport(plan: TeamJobPlan, state: TeamJobState): TeamJobReport {
  const agents = plan.agents.map((agent) => agentReport(state.steps[agent.nodeId]!, agent));
  const integration = integrationReport(plan, state);
  const report = {
    task: plan.data.task,
    jobId: plan.data.jobId,
    startCommit: plan.data.startCommit,
    agents,
    integrated: integration !== null && integration.error === null && integration.conflict === null,
    integration,
    review: reviewReport(plan, state),
  };
  return { summary: summarize(report), ...report };
}
