import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { configError } from './errors.js';
import { git, gitText } from './git.js';

/** What the runtime needs to know about the user's repository. */
export interface RepositoryInfo {
  /** The work tree's top-level directory. */
  readonly topLevel: string;
  /** The repository's (common) git directory, absolute. */
  readonly gitDir: string;
  /** HEAD's commit id now. */
  readonly head: string;
}

/**
 * Checks that `path` is inside a git work tree with at least one commit and describes it.
 * Throws `TEAM_CONFIG` otherwise. Reads only: nothing is created.
 */
export async function inspectRepository(path: string): Promise<RepositoryInfo> {
  const directory = resolve(path);
  const info = await stat(directory).catch(() => null);
  if (info === null || !info.isDirectory()) throw configError('/repository', `The repository ${JSON.stringify(path)} is not a directory.`);
  const inside = await git(directory, ['rev-parse', '--is-inside-work-tree'], { okCodes: [128] });
  if (inside.code !== 0 || inside.stdout.trim() !== 'true') throw configError('/repository', `${JSON.stringify(path)} is not inside a git work tree.`);
  const topLevel = await gitText(directory, ['rev-parse', '--show-toplevel']);
  const gitDir = await gitText(directory, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  const head = await git(directory, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { okCodes: [1, 128] });
  if (head.code !== 0 || head.stdout.trim() === '') throw configError('/repository', `The repository ${JSON.stringify(path)} has no commit yet.`);
  return { topLevel, gitDir, head: head.stdout.trim() };
}

/** Throws `TEAM_CONFIG` unless the repository holds `commit` (a resumed job's start commit). */
export async function assertHoldsCommit(repository: RepositoryInfo, commit: string): Promise<void> {
  const found = await git(repository.topLevel, ['cat-file', '-e', `${commit}^{commit}`], { okCodes: [1, 128] });
  if (found.code !== 0) throw configError('/repository', `The repository does not hold the job's start commit ${commit}.`);
}
