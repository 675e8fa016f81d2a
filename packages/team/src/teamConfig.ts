import { isJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { isStreamId } from '@roundtable/storage';
import { configError } from './errors.js';

/** What an agent's `run` receives. */
export interface AgentRunInput {
  /** `Task: <task>\n\nRole: <role>\n\nBrief: <brief>` */
  readonly prompt: string;
  /** The agent's own git worktree, on branch `roundtable/<runId>/agent/<name>`. */
  readonly workspace: string;
  /** Aborted when the job is aborted or stops on a runtime failure; stop work when it fires. */
  readonly signal: AbortSignal;
}

/** What an agent's `run` returns. */
export interface AgentOutcome {
  readonly status: 'pass' | 'fail';
  readonly summary: string;
  readonly data?: Json;
}

export interface TeamAgent {
  /** Names the agent's branch: `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, no `..`, not ending in `.` or `.lock`. */
  readonly name: string;
  readonly role: string;
  readonly brief: string;
  readonly run: (input: AgentRunInput) => AgentOutcome | Promise<AgentOutcome>;
  /**
   * Whether an attempt whose process died may simply run again (default true: the runtime
   * resets the worktree to its branch first, so only effects outside the worktree could
   * repeat). With false, such an attempt pauses for a person (`reconcile-attempt`).
   */
  readonly retrySafe?: boolean;
}

/** What a panel reviewer receives. */
export interface ReviewerInput {
  readonly task: string;
  /** Every agent's summary, in declaration order. */
  readonly agents: readonly { readonly name: string; readonly role: string; readonly summary: string }[];
  /** `git diff` from the start commit to the integration branch's head. */
  readonly diff: string;
  readonly signal: AbortSignal;
}

export interface ReviewerOutcome {
  readonly status: 'pass' | 'fail';
  readonly summary: string;
}

export interface TeamReviewer {
  readonly name: string;
  readonly run: (input: ReviewerInput) => ReviewerOutcome | Promise<ReviewerOutcome>;
  /** As for agents (default true): a reviewer only reads. */
  readonly retrySafe?: boolean;
}

export interface PanelReview {
  readonly kind: 'panel';
  readonly reviewers: readonly TeamReviewer[];
  /** How many reviewers must pass (default: all). */
  readonly threshold?: number;
}

export interface CallbackReview {
  readonly kind: 'callback';
  /** The pause reason a person sees. */
  readonly reason: string;
  /** JSON shown with the pause (default null). */
  readonly request?: Json;
}

export type TeamReview = PanelReview | CallbackReview;

export interface TeamConfig {
  readonly task: string;
  /** A directory inside a git work tree with at least one commit. */
  readonly repository: string;
  readonly agents: readonly TeamAgent[];
  /** Merge the agents' branches once every agent passed (default true). */
  readonly integrate?: boolean;
  /** Runs after integration. */
  readonly review?: TeamReview;
  /** Where worktrees go (default: `<git dir>/roundtable/worktrees`). */
  readonly workspaceRoot?: string;
  /** How many agents run at once (default: all). */
  readonly concurrency?: number;
}

/** A checked config with its defaults filled in. */
export interface ResolvedTeamConfig {
  readonly task: string;
  readonly repository: string;
  readonly agents: readonly TeamAgent[];
  readonly integrate: boolean;
  readonly review: TeamReview | null;
  readonly workspaceRoot: string | undefined;
  readonly concurrency: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function refuseUnknownKeys(value: Record<string, unknown>, allowed: readonly string[], path: string): void {
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw configError(`${path}/${unknown}`, `Unknown field ${JSON.stringify(unknown)}.`);
}

/** Problems with a name that becomes part of a git branch name, or null. */
function branchNameProblem(name: string): string | null {
  if (!NAME.test(name)) return 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
  if (name.includes('..')) return 'must not contain ".."';
  if (name.endsWith('.lock')) return 'must not end in ".lock"';
  if (name.endsWith('.')) return 'must not end in "." (git refuses such a branch)';
  return null;
}

function checkNames(items: readonly unknown[], path: string, what: string): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const name = (item as { name?: unknown }).name;
    if (typeof name !== 'string' || name === '') throw configError(`${path}/${index}/name`, `Each ${what} needs a non-empty name.`);
    const problem = branchNameProblem(name);
    if (problem !== null) throw configError(`${path}/${index}/name`, `The ${what} name ${JSON.stringify(name)} ${problem}.`);
    if (seen.has(name)) throw configError(`${path}/${index}/name`, `Two ${what}s are named ${JSON.stringify(name)}.`);
    seen.add(name);
  });
}

function checkRetrySafe(value: Record<string, unknown>, path: string): void {
  if (value.retrySafe !== undefined && typeof value.retrySafe !== 'boolean') throw configError(`${path}/retrySafe`, 'retrySafe must be a boolean.');
}

function checkAgents(agents: unknown): readonly TeamAgent[] {
  if (!Array.isArray(agents) || agents.length === 0) throw configError('/agents', 'A team needs at least one agent.');
  agents.forEach((agent: unknown, index) => {
    const path = `/agents/${index}`;
    if (!isObject(agent)) throw configError(path, 'Each agent is an object { name, role, brief, run }.');
    refuseUnknownKeys(agent, ['name', 'role', 'brief', 'run', 'retrySafe'], path);
  });
  checkNames(agents, '/agents', 'agent');
  (agents as Record<string, unknown>[]).forEach((agent, index) => {
    const path = `/agents/${index}`;
    if (!isText(agent.role)) throw configError(`${path}/role`, 'Each agent needs a non-empty role.');
    if (!isText(agent.brief)) throw configError(`${path}/brief`, 'Each agent needs a non-empty brief.');
    if (typeof agent.run !== 'function') throw configError(`${path}/run`, 'Each agent needs a run function.');
    checkRetrySafe(agent, path);
  });
  return agents as readonly TeamAgent[];
}

function checkReview(review: unknown): TeamReview | null {
  if (review === undefined) return null;
  if (!isObject(review)) throw configError('/review', 'review is { kind: "panel", reviewers, threshold? } or { kind: "callback", reason, request? }.');
  if (review.kind === 'panel') {
    refuseUnknownKeys(review, ['kind', 'reviewers', 'threshold'], '/review');
    const reviewers = review.reviewers;
    if (!Array.isArray(reviewers) || reviewers.length === 0) throw configError('/review/reviewers', 'A panel needs at least one reviewer.');
    reviewers.forEach((reviewer: unknown, index) => {
      const path = `/review/reviewers/${index}`;
      if (!isObject(reviewer)) throw configError(path, 'Each reviewer is an object { name, run }.');
      refuseUnknownKeys(reviewer, ['name', 'run', 'retrySafe'], path);
      if (typeof reviewer.run !== 'function') throw configError(`${path}/run`, 'Each reviewer needs a run function.');
      checkRetrySafe(reviewer, path);
    });
    checkNames(reviewers, '/review/reviewers', 'reviewer');
    const threshold = review.threshold;
    if (threshold !== undefined && (typeof threshold !== 'number' || !Number.isSafeInteger(threshold) || threshold < 1 || threshold > reviewers.length)) {
      throw configError('/review/threshold', `threshold must be a whole number from 1 to ${reviewers.length} (the number of reviewers).`);
    }
    return review as unknown as PanelReview;
  }
  if (review.kind === 'callback') {
    refuseUnknownKeys(review, ['kind', 'reason', 'request'], '/review');
    if (!isText(review.reason)) throw configError('/review/reason', 'A callback review needs a non-empty reason.');
    if (review.request !== undefined && !isJson(review.request)) throw configError('/review/request', 'A callback review request must be JSON.');
    return review as unknown as CallbackReview;
  }
  throw configError('/review/kind', 'review.kind is "panel" or "callback".');
}

/** Checks a `team` config (no I/O) and fills in defaults; throws `TEAM_CONFIG` naming the field. */
export function resolveTeamConfig(config: unknown): ResolvedTeamConfig {
  if (!isObject(config)) throw configError('', 'team(config) takes an object { task, repository, agents, ... }.');
  refuseUnknownKeys(config, ['task', 'repository', 'agents', 'integrate', 'review', 'workspaceRoot', 'concurrency'], '');
  if (!isText(config.task)) throw configError('/task', 'task must be a non-empty string.');
  if (!isText(config.repository)) throw configError('/repository', 'repository must be the path of a git work tree.');
  const agents = checkAgents(config.agents);
  if (config.integrate !== undefined && typeof config.integrate !== 'boolean') throw configError('/integrate', 'integrate must be a boolean.');
  const integrate = config.integrate ?? true;
  const review = checkReview(config.review);
  if (review !== null && !integrate) throw configError('/review', 'A review runs after integration: it needs integrate true.');
  if (config.workspaceRoot !== undefined && !isText(config.workspaceRoot)) throw configError('/workspaceRoot', 'workspaceRoot must be a non-empty path.');
  const concurrency = config.concurrency ?? agents.length;
  if (typeof concurrency !== 'number' || !Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw configError('/concurrency', 'concurrency must be a positive whole number.');
  }
  return {
    task: config.task,
    repository: config.repository,
    agents,
    integrate,
    review,
    workspaceRoot: config.workspaceRoot,
    concurrency,
  };
}

/** A run id names the job's branches and its stream: a stream id without `..`, not ending in `.lock`. */
export function checkRunId(runId: unknown): string {
  if (!isStreamId(runId)) throw configError('/runId', 'runId must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$.');
  if (runId.includes('..')) throw configError('/runId', 'runId must not contain "..": it names git branches.');
  if (runId.endsWith('.lock')) throw configError('/runId', 'runId must not end in ".lock": it names git branches.');
  return runId;
}
