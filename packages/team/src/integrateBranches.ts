import { git, gitText } from './git.js';
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

function listNames(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * Merges each agent's recorded commit, in declaration order, into the integration branch in
 * its own worktree (`--no-ff`, fixed author and date, so a rerun after a crash rebuilds the
 * same commits). The branch is first reset to the start commit: nothing recorded depends on
 * an earlier, unfinished integration. On a conflict the merge is aborted and the result names
 * the agents whose changes touch the conflicting paths; the branch keeps the merges before it.
 */
export async function integrateBranches(workspace: string, input: IntegrationInput, runId: string, date: string): Promise<IntegrationNodeResult> {
  await git(workspace, ['merge', '--abort'], { okCodes: [1, 128] });
  await git(workspace, ['reset', '--quiet', '--hard', input.startCommit]);
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
  const commit = await gitText(workspace, ['rev-parse', 'HEAD']);
  return {
    summary: merged.length === 0 ? `No agent changed anything; ${input.branch} is the start commit.` : `Merged ${listNames(merged)} into ${input.branch}.`,
    integrated: true,
    branch: input.branch,
    commit,
    merged,
    conflict: null,
  };
}
