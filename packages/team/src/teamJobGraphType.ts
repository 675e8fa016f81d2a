import type { Json } from '@roundtable/core';
import { GraphEventTypes } from '@roundtable/graph';
import type { DispatchCommand, GraphCommand, GraphEvent, GraphType, GraphValidationIssue } from '@roundtable/graph';
import { TeamJobFailureCodes } from './errors.js';
import {
  INVALID_TEAM_JOB,
  TEAM_JOB_GRAPH_KIND,
  TEAM_JOB_GRAPH_VERSION,
  agentPrompt,
  integrationBranch,
  planTeamJob,
} from './teamJobPlan.js';
import type { TeamJobPlan } from './teamJobPlan.js';
import { teamJobReport } from './teamJobReport.js';
import { AgentNodeResultSchema, CallbackNodeResultSchema, IntegrationNodeResultSchema, ReviewerNodeResultSchema } from './teamJobSchemas.js';
import type { AgentNodeResult, CallbackNodeResult, IntegrationNodeResult, ReviewerNodeResult } from './teamJobSchemas.js';
import { initialTeamJobState } from './teamJobState.js';
import type { TeamJobState, TeamJobStepState } from './teamJobState.js';

const RESULT_SCHEMAS = {
  agent: AgentNodeResultSchema,
  integration: IntegrationNodeResultSchema,
  reviewer: ReviewerNodeResultSchema,
  callback: CallbackNodeResultSchema,
} as const;

function validateStepResult(plan: TeamJobPlan, nodeId: string, result: unknown): GraphValidationIssue | null {
  const kind = plan.kinds.get(nodeId);
  if (kind === undefined) return { code: 'RESULT_INVALID', path: '', message: `Node "${nodeId}" is not part of this team job.` };
  const parsed = RESULT_SCHEMAS[kind].safeParse(result);
  if (parsed.success) return null;
  const first = parsed.error.issues[0]!;
  return { code: 'RESULT_INVALID', path: first.path.map((key) => `/${String(key)}`).join(''), message: `A ${kind} result is invalid: ${first.message}` };
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withStep(state: TeamJobState, nodeId: string, step: TeamJobStepState): TeamJobState {
  return { steps: { ...state.steps, [nodeId]: step } };
}

/**
 * Folds one standard event. A step's position is its node id, so an event applies only when
 * its position names that node; anything that does not fit the step's status is ignored.
 */
function reduceTeamJob(plan: TeamJobPlan, state: TeamJobState, event: GraphEvent): TeamJobState {
  const payload = event.payload;
  if (event.version !== 1 || !isObject(payload)) return state;
  const { nodeId, position } = payload;
  if (typeof nodeId !== 'string' || position !== nodeId) return state;
  const step = state.steps[nodeId];
  if (step === undefined) return state;
  switch (event.type) {
    case GraphEventTypes.NODE_DISPATCHED:
      return step.status === 'pending' ? withStep(state, nodeId, { ...step, status: 'in-flight' }) : state;
    case GraphEventTypes.NODE_PAUSED:
      if (step.status !== 'in-flight' || typeof payload.reason !== 'string') return state;
      return withStep(state, nodeId, { ...step, status: 'paused', pause: { reason: payload.reason, request: payload.request ?? null } });
    case GraphEventTypes.NODE_RESUMED:
      return step.status === 'paused' ? withStep(state, nodeId, { ...step, status: 'in-flight', pause: null }) : state;
    case GraphEventTypes.NODE_FAILED:
      if (step.status !== 'in-flight') return state;
      return withStep(state, nodeId, {
        ...step,
        status: 'failed',
        failure: { code: typeof payload.code === 'string' ? payload.code : 'UNKNOWN', message: typeof payload.message === 'string' ? payload.message : '' },
      });
    case GraphEventTypes.NODE_COMPLETED: {
      if (step.status !== 'in-flight') return state;
      const result = payload.result ?? null;
      const problem = validateStepResult(plan, nodeId, result);
      if (problem !== null) return withStep(state, nodeId, { ...step, status: 'failed', failure: { code: 'RESULT_INVALID', message: problem.message } });
      return withStep(state, nodeId, { ...step, status: 'completed', result });
    }
    default:
      return state;
  }
}

function dispatch(nodeId: string, input: Json): DispatchCommand {
  return { kind: 'dispatch', nodeId, position: nodeId, input };
}

const fail = (code: string, message: string): GraphCommand[] => [{ kind: 'fail', code, message }];
const complete = (plan: TeamJobPlan, state: TeamJobState): GraphCommand[] => [{ kind: 'complete', output: teamJobReport(plan, state) as unknown as Json }];

function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function agentSummaries(plan: TeamJobPlan, state: TeamJobState): Json {
  return plan.agents.map((agent) => ({ name: agent.name, role: agent.role, summary: (state.steps[agent.nodeId]!.result as AgentNodeResult).summary }));
}

/**
 * What to do next. Steps in flight settle first; then agents start in declaration order, at most
 * `concurrency` at a time; then, once every agent passed, the integration; then the review.
 */
function decideTeamJob(plan: TeamJobPlan, state: TeamJobState): GraphCommand[] {
  const step = (nodeId: string) => state.steps[nodeId]!;
  if (Object.values(state.steps).some((entry) => entry.status === 'in-flight')) return [];
  const { data } = plan;

  const pending = plan.agents.filter((agent) => step(agent.nodeId).status === 'pending');
  if (pending.length > 0) {
    return pending.slice(0, data.concurrency).map((agent) =>
      dispatch(agent.nodeId, {
        task: data.task,
        name: agent.name,
        role: agent.role,
        brief: agent.brief,
        prompt: agentPrompt(data.task, agent.role, agent.brief),
        branch: agent.branch,
        startCommit: data.startCommit,
        jobId: data.jobId,
      }),
    );
  }
  const failed = plan.agents.filter((agent) => {
    const entry = step(agent.nodeId);
    return entry.status === 'failed' || (entry.status === 'completed' && (entry.result as AgentNodeResult).status === 'fail');
  });
  if (failed.length > 0) {
    const names = failed.map((agent) => agent.name);
    return fail(TeamJobFailureCodes.AGENT_FAILED, `Agent${names.length > 1 ? 's' : ''} ${listNames(names)} failed; nothing was integrated.`);
  }
  const pausedAgent = plan.agents.find((agent) => step(agent.nodeId).status === 'paused');
  if (pausedAgent !== undefined) return [{ kind: 'pause', reason: step(pausedAgent.nodeId).pause!.reason }];
  if (plan.integration === null) return complete(plan, state);

  const integration = step(plan.integration);
  switch (integration.status) {
    case 'pending':
      return [
        dispatch(plan.integration, {
          startCommit: data.startCommit,
          jobId: data.jobId,
          branch: integrationBranch(data.runId),
          agents: plan.agents.map((agent) => ({ name: agent.name, branch: agent.branch, commit: (step(agent.nodeId).result as AgentNodeResult).commit })),
        }),
      ];
    case 'paused':
      return [{ kind: 'pause', reason: integration.pause!.reason }];
    case 'failed':
      return fail(TeamJobFailureCodes.INTEGRATION_FAILED, `The integration failed: ${integration.failure!.code}: ${integration.failure!.message}`);
    default:
      break;
  }
  const integrated = integration.result as IntegrationNodeResult;
  if (integrated.conflict !== null) {
    return fail(
      TeamJobFailureCodes.INTEGRATION_CONFLICT,
      `Agents ${listNames(integrated.conflict.agents)} conflict in ${integrated.conflict.files.join(', ')}; their branches are kept.`,
    );
  }
  const review = data.review;
  if (review === null) return complete(plan, state);
  const reviewInput = {
    task: data.task,
    startCommit: data.startCommit,
    integration: { branch: integrated.branch, commit: integrated.commit },
    agents: agentSummaries(plan, state),
  };

  if (review.kind === 'callback') {
    const callback = step(plan.callback!);
    switch (callback.status) {
      case 'pending':
        return [dispatch(plan.callback!, { ...reviewInput, reason: review.reason, request: review.request })];
      case 'paused':
        return [{ kind: 'pause', reason: callback.pause!.reason }];
      case 'failed':
        return fail(TeamJobFailureCodes.REVIEW_FAILED, `The review failed: ${callback.failure!.code}: ${callback.failure!.message}`);
      default: {
        const answer = callback.result as CallbackNodeResult;
        if (answer.approved) return complete(plan, state);
        return fail(TeamJobFailureCodes.REVIEW_FAILED, `The review rejected the integration${answer.note === null ? '' : `: ${answer.note}`}; its branch is kept.`);
      }
    }
  }

  const waiting = plan.reviewers.filter((reviewer) => step(reviewer.nodeId).status === 'pending');
  if (waiting.length > 0) return waiting.map((reviewer) => dispatch(reviewer.nodeId, { ...reviewInput, name: reviewer.name }));
  const pausedReviewer = plan.reviewers.find((reviewer) => step(reviewer.nodeId).status === 'paused');
  if (pausedReviewer !== undefined) return [{ kind: 'pause', reason: step(pausedReviewer.nodeId).pause!.reason }];
  const passes = plan.reviewers.filter((reviewer) => {
    const entry = step(reviewer.nodeId);
    return entry.status === 'completed' && (entry.result as ReviewerNodeResult).status === 'pass';
  }).length;
  if (passes >= review.threshold) return complete(plan, state);
  return fail(TeamJobFailureCodes.REVIEW_FAILED, `${passes} of ${plan.reviewers.length} reviewers passed the integration; ${review.threshold} needed. Its branch is kept.`);
}

function describeTeamJob(plan: TeamJobPlan): Json {
  const { data } = plan;
  return {
    kind: TEAM_JOB_GRAPH_KIND,
    version: TEAM_JOB_GRAPH_VERSION,
    task: data.task,
    runId: data.runId,
    jobId: data.jobId,
    startCommit: data.startCommit,
    agents: plan.agents.map((agent) => ({ id: agent.nodeId, name: agent.name, role: agent.role, branch: agent.branch })),
    concurrency: { agents: data.concurrency },
    integration: plan.integration === null ? null : { id: plan.integration, branch: integrationBranch(data.runId) },
    review:
      data.review === null
        ? null
        : data.review.kind === 'panel'
          ? { kind: 'panel', threshold: data.review.threshold, reviewers: plan.reviewers.map((reviewer) => ({ id: reviewer.nodeId, name: reviewer.name })) }
          : { kind: 'callback', id: plan.callback, reason: data.review.reason, request: data.review.request },
    // Every agent always runs; integration and review run only when everything before them passed.
    dispatch: { min: plan.agents.length, max: plan.kinds.size },
  };
}

/**
 * The team-job graph type (SPEC §19), kind `'team-job'`, version 1: agents (each in its own git
 * worktree), then an integration of their branches, then a review. Every step is one node whose
 * position is its node id, so each runs at most once per job.
 */
export const teamJobGraphType: GraphType<TeamJobState> = Object.freeze<GraphType<TeamJobState>>({
  kind: TEAM_JOB_GRAPH_KIND,
  version: TEAM_JOB_GRAPH_VERSION,
  compile: (definition) => {
    const plan = planTeamJob(definition);
    return {
      initialState: () => initialTeamJobState(plan),
      reduce: (state, event) => reduceTeamJob(plan, state, event),
      decide: (state) => decideTeamJob(plan, state),
      describe: () => describeTeamJob(plan),
      validateNodeResult: (nodeId, result) => validateStepResult(plan, nodeId, result),
    };
  },
});

export { INVALID_TEAM_JOB };
