import { canonicalJson, isJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { git, gitText } from './git.js';

/** Trailers that mark a commit as the runtime's commit of one agent's work in one job. */
const RUN_TRAILER = 'Roundtable-Run';
const AGENT_TRAILER = 'Roundtable-Agent';
const RESULT_TRAILER = 'Roundtable-Result';

export interface CommitIdentity {
  readonly runId: string;
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
  return `${subjectOf(identity.agent, summary)}\n\n${summary}\n\n${RUN_TRAILER}: ${identity.runId}\n${AGENT_TRAILER}: ${identity.agent}\n${RESULT_TRAILER}: ${result}\n`;
}

/**
 * The runtime's commit of this agent in this job, if the branch's head is one: a crashed attempt
 * may have committed before its outcome was recorded. The agent's summary and data are read
 * back from the commit's trailers, so the agent does not run again.
 */
export async function findAgentCommit(workspace: string, branch: string, startCommit: string, identity: CommitIdentity): Promise<RecordedAgentWork | null> {
  const head = await gitText(workspace, ['rev-parse', '--verify', `refs/heads/${branch}^{commit}`]);
  if (head === startCommit) return null;
  const message = (await git(workspace, ['log', '-1', '--format=%B', head])).stdout.trimEnd().split('\n');
  const trailer = (key: string, line: string | undefined) => (line?.startsWith(`${key}: `) ? line.slice(key.length + 2) : null);
  const [runLine, agentLine, resultLine] = message.slice(-3);
  if (trailer(RUN_TRAILER, runLine) !== identity.runId || trailer(AGENT_TRAILER, agentLine) !== identity.agent) return null;
  const encoded = trailer(RESULT_TRAILER, resultLine);
  if (encoded === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || !isJson(parsed)) return null;
  const { summary, data } = parsed as { summary?: unknown; data?: Json };
  if (typeof summary !== 'string') return null;
  return { commit: head, summary, data: data ?? null };
}

/**
 * Commits every change in the worktree (tracked, untracked, deletions; ignored files stay out)
 * with the runtime's fixed author. Returns the branch head, or null when nothing changed.
 */
export async function commitAgentWork(workspace: string, startCommit: string, identity: CommitIdentity, summary: string, data: Json): Promise<string | null> {
  await git(workspace, ['add', '--all']);
  const staged = await git(workspace, ['diff', '--cached', '--quiet'], { okCodes: [1] });
  const head = await gitText(workspace, ['rev-parse', 'HEAD']);
  // The agent may have committed by itself: the runtime's commit then marks its last commit.
  if (staged.code === 0 && head === startCommit) return null;
  await git(workspace, ['commit', '--quiet', '--no-verify', '--allow-empty', '--cleanup=verbatim', '-F', '-'], {
    input: commitMessage(identity, summary, data),
    date: identity.date,
  });
  return gitText(workspace, ['rev-parse', 'HEAD']);
}
