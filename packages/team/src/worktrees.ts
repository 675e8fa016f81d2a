import { existsSync, realpathSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { configError } from './errors.js';
import { git, gitText } from './git.js';
import type { RepositoryInfo } from './repository.js';

/** Where the job's worktrees live: `<root>/<runId>/agent/<name>` and `<root>/<runId>/integration`. */
export interface WorkspaceLayout {
  readonly root: string;
  agent(runId: string, name: string): string;
  integration(runId: string): string;
}

/** The default root is inside the repository's git directory, so nothing shows in the user's working tree. */
export function workspaceLayout(repository: RepositoryInfo, workspaceRoot: string | undefined): WorkspaceLayout {
  const root = workspaceRoot === undefined ? join(repository.gitDir, 'roundtable', 'worktrees') : resolve(workspaceRoot);
  if (isInside(canonicalPath(root), canonicalPath(repository.topLevel)) && !isInside(canonicalPath(root), canonicalPath(repository.gitDir))) {
    throw configError('/workspaceRoot', `workspaceRoot ${JSON.stringify(workspaceRoot)} is inside the repository's working tree; worktrees there would show in it.`);
  }
  return {
    root,
    agent: (runId, name) => join(root, runId, 'agent', name),
    integration: (runId) => join(root, runId, 'integration'),
  };
}

/** Worktree additions and removals touch the repository's shared list: one at a time per repository. */
const repositoryLocks = new Map<string, Promise<unknown>>();

function exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = repositoryLocks.get(key) ?? Promise.resolve();
  const result = previous.then(work, work);
  const settled = result.catch(() => undefined);
  repositoryLocks.set(key, settled);
  void settled.then(() => {
    if (repositoryLocks.get(key) === settled) repositoryLocks.delete(key);
  });
  return result;
}

function isInside(path: string, directory: string): boolean {
  const rest = relative(directory, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
function canonicalPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(canonicalPath(parent), basename(absolute));
  }
}

interface ListedWorktree {
  readonly path: string;
  readonly branch: string | null;
}

async function listWorktrees(repository: RepositoryInfo): Promise<ListedWorktree[]> {
  const text = (await git(repository.topLevel, ['worktree', 'list', '--porcelain', '-z'])).stdout;
  const worktrees: ListedWorktree[] = [];
  let current: { path: string; branch: string | null } | null = null;
  for (const field of text.split('\0')) {
    if (field.startsWith('worktree ')) {
      if (current) worktrees.push(current);
      current = { path: field.slice('worktree '.length), branch: null };
    } else if (field.startsWith('branch ') && current) {
      current.branch = field.slice('branch '.length);
    }
  }
  if (current) worktrees.push(current);
  return worktrees;
}

/**
 * Waits for another git process (one a crashed job left running) to release a worktree's index,
 * for up to 15 s by the clock: such a process ends in milliseconds on a quiet machine, but a
 * loaded one can keep it for seconds (the count of 25 ms sleeps this once was ran out sooner).
 */
async function waitForIndex(path: string): Promise<void> {
  const lock = await gitText(path, ['rev-parse', '--path-format=absolute', '--git-path', 'index.lock']);
  const until = Date.now() + 15_000;
  while (existsSync(lock) && Date.now() < until) await new Promise((done) => setTimeout(done, 25));
}

/**
 * Makes sure `path` is a worktree of the repository on `branch` (which exists: the job made or
 * claimed it): an existing one is reused, one a crash left half-made or on another branch is
 * rebuilt from the branch. Returns once no other git process holds the worktree's index.
 */
export async function ensureWorktree(repository: RepositoryInfo, path: string, branch: string): Promise<void> {
  await exclusive(repository.gitDir, async () => {
    const wanted = canonicalPath(path);
    const listed = (await listWorktrees(repository)).find((worktree) => canonicalPath(worktree.path) === wanted);
    if (listed !== undefined) {
      if (listed.branch === `refs/heads/${branch}` && existsSync(join(path, '.git'))) return;
      await git(repository.topLevel, ['worktree', 'remove', '--force', '--force', path], { okCodes: [128] });
    }
    if (await stat(path).catch(() => null)) await rm(path, { recursive: true, force: true });
    await git(repository.topLevel, ['worktree', 'prune']);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await git(repository.topLevel, ['worktree', 'add', '--quiet', path, branch]);
  });
  await waitForIndex(path);
}
