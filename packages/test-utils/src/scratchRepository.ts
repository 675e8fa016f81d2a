import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A user's repository for tests: a real git repository in a temporary directory. */
export interface ScratchRepository {
  readonly dir: string;
  /** Runs git in the repository (or in `cwd`) and returns its trimmed output. */
  git(args: readonly string[], cwd?: string): Promise<string>;
  remove(): Promise<void>;
}

const ENV = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_'))),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'A User',
  GIT_AUTHOR_EMAIL: 'user@example.com',
  GIT_COMMITTER_NAME: 'A User',
  GIT_COMMITTER_EMAIL: 'user@example.com',
  GIT_AUTHOR_DATE: '@1764547200 +0000',
  GIT_COMMITTER_DATE: '@1764547200 +0000',
};

/**
 * A repository on branch `main` with one commit holding `files` (default: a README and a
 * source file). Dates and identities are fixed, so the same files give the same commit id.
 */
export async function scratchRepository(files: Record<string, string> = DEFAULT_REPOSITORY_FILES, options: { commit?: boolean } = {}): Promise<ScratchRepository> {
  const dir = await mkdtemp(join(tmpdir(), 'roundtable-repo-'));
  const git = async (args: readonly string[], cwd = dir) => (await run('git', [...args], { cwd, env: ENV, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
  await git(['init', '--quiet', '--initial-branch=main']);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  if (options.commit !== false) {
    await git(['add', '--all']);
    await git(['commit', '--quiet', '-m', 'Start']);
  }
  return { dir, git, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A README and a source file. */
export const DEFAULT_REPOSITORY_FILES: Record<string, string> = {
  'README.md': '# Scratch\n\nA project.\n',
  'src/greet.js': "export function greet(name) {\n  return 'Hello, ' + name;\n}\n",
};
