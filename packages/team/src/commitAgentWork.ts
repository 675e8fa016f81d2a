import { canonicalJson, isJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { git, gitText } from './git.js';
import { claimJobRef, moveJobRef } from './jobRefs.js';
import type { JobIdentity } from './jobRefs.js';

/** Trailers that mark a commit as the runtime's commit of one agent's work in one job, in this order. */
const RUN_TRAILER = 'Roundtable-Run';
const JOB_TRAILER = 'Roundtable-Job';
const AGENT_TRAILER = 'Roundtable-Agent';
const RESULT_TRAILER = 'Roundtable-Result';

export interface CommitIdentity {
  readonly job: JobIdentity;
  readonly agent: string;
  /** Author and committer date (`@<seconds> +0000`): fixed per job, so a commit is reproducible. */
  readonly date: string;
}

export interface RecordedAgentWork {
  readonly commit: string;
  readonly summary: string;
  readonly data: Json;
}

function subjectOf(agent: string, summary: string): string {
  const line = summary.split('\n', 1)[0]!.trim();
  const subject = `${agent}: ${line === '' ? 'changes' : line}`;
  return subject.length <= 72 ? subject : `${subject.slice(0, 71)}…`;
}

function commitMessage(identity: CommitIdentity, summary: string, data: Json): string {
  const result = Buffer.from(canonicalJson({ summary, data }), 'utf8').toString('base64');
  const trailers = [
    `${RUN_TRAILER}: ${identity.job.runId}`,
    `${JOB_TRAILER}: ${identity.job.jobId}`,
    `${AGENT_TRAILER}: ${identity.agent}`,
    `${RESULT_TRAILER}: ${result}`,
  ];
  return `${subjectOf(identity.agent, summary)}\n\n${summary}\n\n${trailers.join('\n')}\n`;
}

function decodeResult(encoded: string): { summary: string; data: Json } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || !isJson(parsed)) return null;
  const { summary, data } = parsed as { summary?: unknown; data?: Json };
  return typeof summary === 'string' ? { summary, data: data ?? null } : null;
}

/**
 * The agent's outcome that `commit` stands for, or null unless it is the runtime's commit of
 * this agent in this job: its one parent is the job's start commit and its trailers name the
 * job's run id, job id and the agent. (A crashed attempt may have committed before its outcome
 * was recorded; the summary and data are read back from the commit, so the agent does not run
 * again.)
 */
export async function readAgentCommit(workspace: string, commit: string, identity: CommitIdentity): Promise<RecordedAgentWork | null> {
  const [parents = '', ...message] = (await git(workspace, ['show', '-s', '--format=%P%n%B', commit])).stdout.trimEnd().split('\n');
  if (parents !== identity.job.startCommit) return null;
  const expected = [RUN_TRAILER, JOB_TRAILER, AGENT_TRAILER, RESULT_TRAILER];
  const values = message.slice(-expected.length).map((line, index) => (line.startsWith(`${expected[index]}: `) ? line.slice(expected[index]!.length + 2) : null));
  const [runId, jobId, agent, result] = values;
  if (runId !== identity.job.runId || jobId !== identity.job.jobId || agent !== identity.agent || typeof result !== 'string') return null;
  const decoded = decodeResult(result);
  return decoded === null ? null : { commit, ...decoded };
}

/**
 * Commits every change in the worktree (tracked, untracked, deletions; ignored files stay out)
 * as one commit on the start commit with the runtime's fixed author, and moves the agent's
 * branch to it, whatever the worktree's HEAD is: an agent that switched branches, detached HEAD
 * or made commits of its own still has its work on its branch. The worktree is put back on its
 * branch. Returns the commit, or null (the branch at the start commit) when nothing changed.
 */
export async function commitAgentWork(workspace: string, branch: string, identity: CommitIdentity, summary: string, data: Json): Promise<string | null> {
  const { job } = identity;
  const ref = `refs/heads/${branch}`;
  await git(workspace, ['add', '--all']);
  const tree = await gitText(workspace, ['write-tree']);
  const unchanged = tree === (await gitText(workspace, ['rev-parse', `${job.startCommit}^{tree}`]));
  const commit = unchanged ? null : await gitText(workspace, ['commit-tree', tree, '-p', job.startCommit, '-F', '-'], { input: commitMessage(identity, summary, data), date: identity.date });
  // The agent ran in this attempt, so it may have moved its own branch; nobody else's ref moves.
  const head = await claimJobRef(workspace, ref, job, true);
  await moveJobRef(workspace, ref, job, commit ?? job.startCommit, head, unchanged ? `agent ${identity.agent} changed nothing` : `commit agent ${identity.agent}`);
  await git(workspace, ['symbolic-ref', 'HEAD', ref]);
  return commit;
}
