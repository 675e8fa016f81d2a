import { randomUUID } from 'node:crypto';
import type { Json } from '@roundtable/core';
import { GraphExecutionError, compileGraph, foldStream, isGraphExecutionError, nextStep, openStoredRun, runStatusOf, storedGraphMismatch } from '@roundtable/graph';
import type { CompiledGraph, GraphDefinition, GraphType, RunRecordFolder, RunStatus, StoredRun, StoredRunDefinition } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { GraphRunResult } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import { TeamError, TeamJobFailureCodes, configError } from './errors.js';
import { jobBindings } from './jobBindings.js';
import { assertJobRefs } from './jobRefs.js';
import type { JobIdentity } from './jobRefs.js';
import { JobSession } from './jobSession.js';
import { assertHoldsCommit } from './repository.js';
import { checkRunId, resolveTeamConfig } from './teamConfig.js';
import type { ResolvedTeamConfig, TeamConfig } from './teamConfig.js';
import { teamJobGraphType } from './teamJobGraphType.js';
import {
  CALLBACK_REVIEW_NODE_ID,
  INTEGRATION_NODE_ID,
  TEAM_JOB_GRAPH_KIND,
  TEAM_JOB_GRAPH_VERSION,
  agentNodeId,
  integrationBranch,
  planTeamJob,
  reviewerNodeId,
} from './teamJobPlan.js';
import type { TeamJobPlan } from './teamJobPlan.js';
import { teamJobReport } from './teamJobReport.js';
import type { TeamJobReport } from './teamJobReport.js';
import { ReviewAnswerSchema } from './teamJobSchemas.js';
import type { TeamJobState } from './teamJobState.js';

export interface TeamRunOptions {
  readonly storage: RunStorage;
  /** The job's run id: its stream id, and part of every branch name the job makes. */
  readonly runId: string;
  readonly signal?: AbortSignal;
}

export interface TeamResumeOptions extends TeamRunOptions {
  /** A paused or unfinished position: `review` for a callback review, `agent/<name>` after a crash. */
  readonly position: string;
  /** For a callback review, `{ approved: boolean, note?: string }`. */
  readonly value?: Json;
}

/** A job's result: what the record says, and how the job stands. */
export interface TeamJobResult extends TeamJobReport {
  readonly runId: string;
  /**
   * The run status of graph's one vocabulary (`RunStatus`): `complete`: every agent passed, the
   * branches were merged (unless `integrate` is false) and the review passed; `failed`: see
   * `failure`; `paused`: see `pause` (a callback review, or an attempt to reconcile after a
   * crash); `waiting`: attempts a stopped process left unfinished, `resume` each of `waiting`;
   * `cancelled`: see `cancel` (`cancelRun`, SPEC 20).
   */
  readonly status: Exclude<RunStatus, 'running'>;
  /** Why the job failed: `code` is one of `TeamJobFailureCodes`; `agents` names the agents at fault. */
  readonly failure: { readonly code: string; readonly message: string; readonly agents: readonly string[] } | null;
  readonly pause: { readonly position: string | null; readonly reason: string; readonly request: Json } | null;
  readonly waiting: readonly string[];
  /** The cancel that ended the job: its reason and the revision of its `graph:run-cancelled`. */
  readonly cancel: { readonly reason: string; readonly revision: number } | null;
}

export interface TeamJob {
  /** Starts the job, or continues it from its record; a finished job's result is replayed. */
  run(options: TeamRunOptions): Promise<TeamJobResult>;
  /** Answers a callback review, or recovers an attempt a stopped process left unfinished. */
  resume(options: TeamResumeOptions): Promise<TeamJobResult>;
}

const DEFINITION_ID = 'team-job';

/** A job's identity as its definition records it: its run id, its job id and its start commit. */
export type TeamJobIdentity = JobIdentity;

/** The graph definition of a job: the config's decisions and the job's identity. */
export function teamJobDefinition(config: ResolvedTeamConfig, job: TeamJobIdentity): GraphDefinition {
  const review = config.review;
  const nodes: GraphDefinition['nodes'] = config.agents.map((agent) => ({
    id: agentNodeId(agent.name),
    data: { kind: 'agent', name: agent.name, role: agent.role, brief: agent.brief },
  }));
  if (config.integrate) nodes.push({ id: INTEGRATION_NODE_ID, data: { kind: 'integration' } });
  if (review?.kind === 'panel') for (const reviewer of review.reviewers) nodes.push({ id: reviewerNodeId(reviewer.name), data: { kind: 'reviewer', name: reviewer.name } });
  if (review?.kind === 'callback') nodes.push({ id: CALLBACK_REVIEW_NODE_ID, data: { kind: 'callback' } });
  return {
    id: DEFINITION_ID,
    definitionVersion: 1,
    data: {
      task: config.task,
      runId: job.runId,
      jobId: job.jobId,
      startCommit: job.startCommit,
      integrate: config.integrate,
      concurrency: config.concurrency,
      review:
        review === null
          ? null
          : review.kind === 'panel'
            ? { kind: 'panel', threshold: review.threshold ?? review.reviewers.length }
            : { kind: 'callback', reason: review.reason, request: review.request ?? null },
    },
    nodes,
    edges: [],
  };
}

function storedIdentity(stored: StoredRunDefinition, runId: string): JobIdentity {
  const { startCommit, jobId } = (stored.value as { data?: { startCommit?: unknown; jobId?: unknown } } | null)?.data ?? {};
  const isJob = stored.kind === TEAM_JOB_GRAPH_KIND && stored.typeVersion === TEAM_JOB_GRAPH_VERSION;
  if (!isJob || typeof startCommit !== 'string' || typeof jobId !== 'string') {
    const what = isJob ? 'a team job without a job id (recorded before jobs had one)' : `a ${stored.kind} graph v${stored.typeVersion}, not a team job`;
    throw new GraphExecutionError('STORED_GRAPH_MISMATCH', `Run ${runId} holds ${what}: give this job a run id of its own.`, {
      details: { stored: { kind: stored.kind, typeVersion: stored.typeVersion, digest: stored.digest } },
    });
  }
  return { runId, jobId, startCommit };
}

/** The refs the rest of the job may make or move: those of agents and an integration with no recorded outcome. */
function refsToMake(plan: TeamJobPlan, state: TeamJobState): string[] {
  const unsettled = (nodeId: string) => state.steps[nodeId]!.status !== 'completed' && state.steps[nodeId]!.status !== 'failed';
  const branches = plan.agents.filter((agent) => unsettled(agent.nodeId)).map((agent) => agent.branch);
  if (plan.integration !== null && unsettled(plan.integration)) branches.push(integrationBranch(plan.data.runId));
  return branches.map((branch) => `refs/heads/${branch}`);
}

/** Whether continuing the folded job runs anything (so the repository must be there): it starts, or dispatches a batch. */
function hasWorkToDo(graph: CompiledGraph<TeamJobState>, folder: RunRecordFolder<TeamJobState>): boolean {
  const step = nextStep(graph, folder);
  return step.kind === 'start' || step.kind === 'dispatch';
}

/**
 * The stored job opened with its stored definition, or null when the run has no events. A run
 * of another graph type holds no team job: STORED_GRAPH_MISMATCH.
 */
async function openStoredJob(storage: RunStorage, runId: string): Promise<StoredRun | null> {
  try {
    return await openStoredRun(storage, runId, { types: [teamJobGraphType as unknown as GraphType<unknown>] });
  } catch (error) {
    if (isGraphExecutionError(error, 'RUN_NOT_FOUND')) return null;
    if (!isGraphExecutionError(error, 'UNKNOWN_GRAPH_TYPE')) throw error;
    const { kind, typeVersion } = error.details as { kind: string; typeVersion: number };
    throw new GraphExecutionError('STORED_GRAPH_MISMATCH', `Run ${runId} holds a ${kind} graph v${typeVersion}, not a team job.`, { details: { stored: { kind, typeVersion } }, cause: error });
  }
}

function failureAgents(code: string, report: TeamJobReport): string[] {
  if (code === TeamJobFailureCodes.AGENT_FAILED) return report.agents.filter((agent) => agent.outcome === 'fail').map((agent) => agent.name);
  if (code === TeamJobFailureCodes.INTEGRATION_CONFLICT) return [...(report.integration?.conflict?.agents ?? [])];
  return [];
}

function jobResult(runId: string, plan: TeamJobPlan, state: TeamJobState, outcome: GraphRunResult): TeamJobResult {
  const report = teamJobReport(plan, state);
  const base = { runId, ...report, status: runStatusOf(outcome) as TeamJobResult['status'], failure: null, pause: null, waiting: [] as string[], cancel: null };
  switch (outcome.kind) {
    case 'complete':
      return base;
    case 'fail':
      return { ...base, failure: { code: outcome.code, message: outcome.message, agents: failureAgents(outcome.code, report) } };
    case 'pause':
      return { ...base, pause: { position: outcome.position, reason: outcome.reason, request: outcome.request } };
    case 'waiting':
      return { ...base, waiting: [...outcome.positions] };
    case 'cancelled':
      return { ...base, cancel: { reason: outcome.reason, revision: outcome.revision } };
  }
}

async function runJob(config: ResolvedTeamConfig, options: TeamRunOptions, resume: { position: string; value: Json | undefined } | null): Promise<TeamJobResult> {
  const runId = checkRunId(options?.runId);
  const storage = options.storage;
  if (typeof storage?.read !== 'function' || typeof storage.append !== 'function') throw configError('/storage', 'storage must be a RunStorage.');
  const session = new JobSession(config, runId, options.signal);
  try {
    const opened = await openStoredJob(storage, runId);
    const stored = opened?.stored ?? null;
    if (stored === null && resume !== null) {
      throw new GraphExecutionError('PROTOCOL', `Run ${runId} holds no team job to resume.`, { details: { position: resume.position } });
    }
    // A new job draws its id: a later job that reuses the run id is another job, whatever the repository holds.
    const job = stored === null ? { runId, jobId: randomUUID(), startCommit: (await session.repository()).head } : storedIdentity(stored, runId);
    const graph = compileGraph(teamJobGraphType, teamJobDefinition(config, job));
    const plan = planTeamJob(graph.definition.value);
    const mismatch = stored === null ? null : storedGraphMismatch(stored, graph);
    if (mismatch !== null) throw mismatch;
    const folder = (opened?.folder as RunRecordFolder<TeamJobState> | undefined) ?? (await foldStream(storage, runId, { graph }));

    if (resume !== null && resume.position === plan.callback) {
      if (!ReviewAnswerSchema.safeParse(resume.value).success) {
        throw new TeamError('INVALID_REVIEW_ANSWER', 'Answer a callback review with { approved: boolean, note?: string }.', { details: { value: resume.value } });
      }
    } else if (resume !== null || hasWorkToDo(graph, folder)) {
      const repository = await session.repository();
      await session.layout();
      if (stored !== null) await assertHoldsCommit(repository, job.startCommit);
      await assertJobRefs(repository.topLevel, refsToMake(plan, folder.state), job);
    }

    const executor = await createGraphExecutor({ runId, graph, storage, nodes: jobBindings(session, plan) });
    let outcome: GraphRunResult;
    try {
      // A value answers a pause; without one, resume recovers an attempt a crash left unfinished.
      outcome = resume === null ? await executor.run(session.signal) : await executor.resume(resume.position, { ...(resume.value === undefined ? {} : { value: resume.value }), signal: session.signal });
    } catch (error) {
      throw session.error ?? error;
    }
    if (session.error !== null) throw session.error;
    await foldStream(storage, runId, { folder });
    return jobResult(runId, plan, folder.state, outcome);
  } finally {
    session.dispose();
  }
}

/**
 * A callable team job (SPEC §19): agents in parallel, each in its own git worktree, their
 * branches integrated and the result reviewed, durable on the stored executor. The config is
 * checked here (`TEAM_CONFIG`); nothing is created until `run`.
 */
export function team(config: TeamConfig): TeamJob {
  const resolved = resolveTeamConfig(config);
  return {
    run: (options) => runJob(resolved, options, null),
    resume: (options) => runJob(resolved, options, { position: options?.position, value: options?.value }),
  };
}
