import { git, gitText } from './git.js';
import { moveJobRef } from './jobRefs.js';
import type { JobIdentity } from './jobRefs.js';
import type { IntegrationNodeResult } from './teamJobSchemas.js';

export interface IntegrationInput {
  readonly startCommit: string;
  readonly branch: string;
  readonly agents: readonly { readonly name: string; readonly branch: string; readonly commit: string | null }[];
}

async function changedFiles(workspace: string, from: string, to: string): Promise<Set<string>> {
  const text = (await git(workspace, ['diff', '--no-ext-diff', '--name-only', '-z', from, to])).stdout;
  return new Set(text.split('\0').filter((path) => path !== ''));
}

/** Moves the integration branch to the worktree's HEAD and puts the worktree back on it; returns the commit. */
async function moveBranch(workspace: string, branch: string, job: JobIdentity, from: string): Promise<string> {
  const ref = `refs/heads/${branch}`;
  const commit = await gitText(workspace, ['rev-parse', 'HEAD']);
  await moveJobRef(workspace, ref, job, commit, from, 'integrate');
  await git(workspace, ['symbolic-ref', 'HEAD', ref]);
  return commit;
}

function listNames(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * Merges each agent's recorded commit, in declaration order, on a detached HEAD at the start
 * commit in the integration's own worktree (`--no-ff`, fixed author and date, so a rerun after
 * a crash rebuilds the same commits), then moves the integration branch from `head` (where the
 * job left it) to the result and puts the worktree back on it: nothing recorded depends on an
 * earlier, unfinished integration, and no ref but the job's own branch moves. On a conflict the
 * merge is aborted and the result names the agents whose changes touch the conflicting paths;
 * the branch gets the merges before it.
 */
export async function integrateBranches(workspace: string, input: IntegrationInput, job: JobIdentity, head: string, date: string): Promise<IntegrationNodeResult> {
  const { runId } = job;
  await git(workspace, ['merge', '--abort'], { okCodes: [1, 128] });
  await git(workspace, ['checkout', '--quiet', '--force', '--detach', input.startCommit]);
  await git(workspace, ['clean', '-fdxq']);
  const merged: string[] = [];
  for (const agent of input.agents) {
    if (agent.commit === null) continue;
    const merge = await git(workspace, ['merge', '--no-ff', '--no-edit', '--quiet', '-m', `Merge agent ${agent.name} (${runId})`, agent.commit], {
      okCodes: [1],
      date,
    });
    if (merge.code === 0) {
      merged.push(agent.name);
      continue;
    }
    const unmerged = (await git(workspace, ['diff', '--name-only', '-z', '--diff-filter=U'])).stdout.split('\0').filter((path) => path !== '');
    await git(workspace, ['merge', '--abort'], { okCodes: [128] });
    if (unmerged.length === 0) {
      throw new Error(`Merging agent ${agent.name} failed without a conflict: ${merge.stderr.trim() || merge.stdout.trim()}`);
    }
    await moveBranch(workspace, input.branch, job, head);
    const files = new Set(unmerged);
    const involved: string[] = [];
    for (const earlier of input.agents) {
      if (earlier.name === agent.name) break;
      if (earlier.commit === null || !merged.includes(earlier.name)) continue;
      const touched = await changedFiles(workspace, input.startCommit, earlier.commit);
      if ([...files].some((file) => touched.has(file))) involved.push(earlier.name);
    }
    involved.push(agent.name);
    return {
      summary: `Agents ${listNames(involved)} conflict in ${unmerged.join(', ')}.`,
      integrated: false,
      branch: input.branch,
      commit: null,
      merged,
      conflict: { agents: involved, files: unmerged },
    };
  }
  const commit = await moveBranch(workspace, input.branch, job, head);
  return {
    summary: merged.length === 0 ? `No agent changed anything; ${input.branch} is the start commit.` : `Merged ${listNames(merged)} into ${input.branch}.`,
    integrated: true,
    branch: input.branch,
    commit,
    merged,
    conflict: null,
  };
}
