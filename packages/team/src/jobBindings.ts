import { isJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import type { NodeBindingObject } from '@roundtable/scheduler';
import { commitAgentWork, readAgentCommit } from './commitAgentWork.js';
import { TeamError } from './errors.js';
import { git } from './git.js';
import { integrateBranches } from './integrateBranches.js';
import type { IntegrationInput } from './integrateBranches.js';
import { claimJobRef, refExistsError } from './jobRefs.js';
import type { JobIdentity } from './jobRefs.js';
import type { JobSession } from './jobSession.js';
import type { AgentOutcome, ReviewerOutcome, TeamAgent, TeamReviewer } from './teamConfig.js';
import type { TeamJobPlan } from './teamJobPlan.js';
import { ReviewAnswerSchema } from './teamJobSchemas.js';
import type { AgentNodeResult, CallbackNodeResult, IntegrationNodeResult, ReviewerNodeResult } from './teamJobSchemas.js';
import { ensureWorktree } from './worktrees.js';
import type { WorkspaceLayout } from './worktrees.js';

interface AgentInput {
  readonly prompt: string;
  readonly branch: string;
  readonly startCommit: string;
  readonly jobId: string;
}

type StepInput = { readonly startCommit: string; readonly jobId: string };

interface ReviewInput {
  readonly task: string;
  readonly startCommit: string;
  readonly integration: { readonly branch: string; readonly commit: string };
  readonly agents: readonly { readonly name: string; readonly role: string; readonly summary: string }[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function checkOutcome(value: unknown, who: string, withData: boolean): AgentOutcome {
  const shape = withData ? "{ status: 'pass' | 'fail', summary: string, data?: Json }" : "{ status: 'pass' | 'fail', summary: string }";
  if (!isObject(value) || (value.status !== 'pass' && value.status !== 'fail') || typeof value.summary !== 'string') {
    throw new Error(`${who} must return ${shape}.`);
  }
  if (withData && value.data !== undefined && !isJson(value.data)) throw new Error(`${who} returned data that is not JSON.`);
  return { status: value.status, summary: value.summary, data: (value.data ?? null) as Json };
}

const jobOf = (session: JobSession, input: StepInput): JobIdentity => ({ runId: session.runId, jobId: input.jobId, startCommit: input.startCommit });

/**
 * The worktree at `path` on the job's `branch`, which is made at the start commit when missing
 * and otherwise must be the job's, where the job left it (`REF_EXISTS` if not, before anything
 * moves). Returns the commit the branch holds.
 */
function prepareWorktree(session: JobSession, job: JobIdentity, path: (layout: WorkspaceLayout) => string, branch: string) {
  return session.step(async () => {
    const repository = await session.repository();
    const workspace = path(await session.layout());
    const head = await claimJobRef(repository.topLevel, `refs/heads/${branch}`, job);
    await ensureWorktree(repository, workspace, branch);
    return { workspace, head };
  });
}

/**
 * An agent's attempt: its branch and worktree (made, reused or rebuilt from its branch); if a
 * crashed attempt already committed this agent's work in this job, the outcome is read back from
 * that commit and the agent does not run again; otherwise the worktree is reset to the start
 * commit, the agent runs and on a pass the runtime commits its work to its branch. A failed
 * agent's worktree is left as it is.
 */
function agentBinding(session: JobSession, agent: TeamAgent): NodeBindingObject {
  return {
    retrySafe: agent.retrySafe ?? true,
    run: async (ctx): Promise<AgentNodeResult> => {
      const input = ctx.input as unknown as AgentInput;
      const job = jobOf(session, input);
      const { workspace, head } = await prepareWorktree(session, job, (layout) => layout.agent(session.runId, agent.name), input.branch);
      const identity = { job, agent: agent.name, date: await session.step(() => session.commitDate(input.startCommit)) };
      if (head !== input.startCommit) {
        const earlier = await session.step(async () => {
          const found = await readAgentCommit(workspace, head, identity);
          if (found === null) throw refExistsError(`refs/heads/${input.branch}`, head, true);
          return found;
        });
        return { summary: earlier.summary, status: 'pass', data: earlier.data, commit: earlier.commit, branch: input.branch, recovered: true };
      }
      // The branch is at the start commit: resetting to it moves no ref.
      await session.step(async () => {
        await git(workspace, ['reset', '--quiet', '--hard']);
        await git(workspace, ['clean', '-fdxq']);
      });
      const outcome = checkOutcome(await agent.run({ prompt: input.prompt, workspace, signal: ctx.signal }), `Agent ${agent.name}'s run`, true);
      const data = outcome.data ?? null;
      if (outcome.status === 'fail') return { summary: outcome.summary, status: 'fail', data, commit: null, branch: input.branch, recovered: false };
      const commit = await session.step(() => commitAgentWork(workspace, input.branch, identity, outcome.summary, data));
      return { summary: outcome.summary, status: 'pass', data, commit, branch: input.branch, recovered: false };
    },
  };
}

/** The integration: always rebuilt from the start commit, so re-running a crashed attempt is safe. */
function integrationBinding(session: JobSession): NodeBindingObject {
  return {
    retrySafe: true,
    run: async (ctx): Promise<IntegrationNodeResult> => {
      const input = ctx.input as unknown as IntegrationInput & StepInput;
      const job = jobOf(session, input);
      const date = await session.step(() => session.commitDate(input.startCommit));
      const { workspace, head } = await prepareWorktree(session, job, (layout) => layout.integration(session.runId), input.branch);
      return session.step(() => integrateBranches(workspace, input, job, head, date));
    },
  };
}

function reviewerBinding(session: JobSession, reviewer: TeamReviewer): NodeBindingObject {
  return {
    retrySafe: reviewer.retrySafe ?? true,
    run: async (ctx): Promise<ReviewerNodeResult> => {
      const input = ctx.input as unknown as ReviewInput;
      const diff = await session.step(async () => {
        const repository = await session.repository();
        const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color', '-M', input.startCommit, input.integration.commit];
        return (await git(repository.topLevel, args)).stdout;
      });
      const outcome: ReviewerOutcome = checkOutcome(
        await reviewer.run({ task: input.task, agents: input.agents, diff, signal: ctx.signal }),
        `Reviewer ${reviewer.name}'s run`,
        false,
      );
      return { summary: outcome.summary, status: outcome.status };
    },
  };
}

/** A person's review: the first attempt pauses with the configured reason; `resume` brings the answer. */
function callbackBinding(reason: string, request: Json): NodeBindingObject {
  return {
    retrySafe: true,
    decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason, request } : { kind: 'allow' }),
    run: (ctx): CallbackNodeResult => {
      const answer = ReviewAnswerSchema.safeParse(ctx.resume);
      if (!answer.success) throw new TeamError('INVALID_REVIEW_ANSWER', 'A review answer is { approved: boolean, note?: string }.');
      const note = answer.data.note ?? null;
      const verdict = answer.data.approved ? 'Approved' : 'Rejected';
      return { summary: note === null ? `${verdict}.` : `${verdict}: ${note}`, approved: answer.data.approved, note };
    },
  };
}

/** A binding for every node of the job's graph. */
export function jobBindings(session: JobSession, plan: TeamJobPlan): Record<string, NodeBindingObject> {
  const { config } = session;
  const nodes: Record<string, NodeBindingObject> = {};
  plan.agents.forEach((planned, index) => (nodes[planned.nodeId] = agentBinding(session, config.agents[index]!)));
  if (plan.integration !== null) nodes[plan.integration] = integrationBinding(session);
  const review = config.review;
  if (review?.kind === 'panel') plan.reviewers.forEach((planned, index) => (nodes[planned.nodeId] = reviewerBinding(session, review.reviewers[index]!)));
  if (review?.kind === 'callback' && plan.callback !== null) nodes[plan.callback] = callbackBinding(review.reason, review.request ?? null);
  return nodes;
}
