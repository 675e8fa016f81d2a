import { execFile } from 'node:child_process';
import { TeamError } from './errors.js';

/** The fixed identity of every commit the runtime makes. */
export const RUNTIME_AUTHOR = { name: 'Roundtable', email: 'roundtable@localhost' } as const;

/**
 * Options that keep a user's or the system's git configuration from changing what the runtime
 * does: no hooks, no signing, no line-ending conversion, no external diff or merge tools, no
 * pager, no colours, plain paths. The repository's own config still applies to what it alone
 * decides (for example its merge attributes).
 */
const FIXED_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.fsmonitor=false',
  'core.quotepath=false',
  'core.pager=cat',
  'core.editor=true',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'merge.ff=false',
  'merge.conflictStyle=merge',
  'merge.renames=true',
  'merge.autoStash=false',
  'pull.rebase=false',
  'rerere.enabled=false',
  'diff.renames=true',
  'diff.noprefix=false',
  'diff.mnemonicPrefix=false',
  'diff.external=',
  'color.ui=false',
  'advice.detachedHead=false',
  'i18n.commitEncoding=utf-8',
  'user.useConfigOnly=false',
  'log.showSignature=false',
  'status.showUntrackedFiles=all',
].flatMap((option) => ['-c', option]);

/** Environment variables from the caller that would point git at another repository or config. */
const DROPPED_ENV = /^GIT_/;

export interface GitOptions {
  /** Text written to git's standard input. */
  readonly input?: string;
  /** Exit codes other than 0 that are answers, not failures (for example 1 from `diff --quiet`). */
  readonly okCodes?: readonly number[];
  /** Author and committer date of commits this command makes (`@<seconds> +0000`). */
  readonly date?: string;
  readonly signal?: AbortSignal;
}

export interface GitResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

function gitEnv(date: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!DROPPED_ENV.test(key)) env[key] = value;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_AUTHOR_NAME: RUNTIME_AUTHOR.name,
    GIT_AUTHOR_EMAIL: RUNTIME_AUTHOR.email,
    GIT_COMMITTER_NAME: RUNTIME_AUTHOR.name,
    GIT_COMMITTER_EMAIL: RUNTIME_AUTHOR.email,
  });
  if (date !== undefined) {
    env.GIT_AUTHOR_DATE = date;
    env.GIT_COMMITTER_DATE = date;
  }
  return env;
}

/** Another git process holds a lock file (git's own message when its `.lock` exclusive create fails). */
const LOCK_BUSY = /\.lock'?: File exists/;
const LOCK_RETRIES = 40;
const LOCK_RETRY_MS = 50;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function execGit(cwd: string, args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...FIXED_CONFIG, ...args],
      { cwd, env: gitEnv(options.date), maxBuffer: 256 * 1024 * 1024, encoding: 'utf8', signal: options.signal },
      (error, stdout, stderr) => {
        if (error === null) return resolve({ stdout, stderr, code: 0 });
        const code = typeof error.code === 'number' ? error.code : null;
        if (code === null) return reject(new Error(error.message, { cause: error }));
        resolve({ stdout, stderr, code });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/**
 * Runs one git command (no shell) in `cwd` with the fixed configuration above. A command that
 * finds another git process's lock (a process that is still finishing, for example one left by
 * a crashed job) is retried for about two seconds. Any other failure throws `GIT_FAILED` with
 * git's own message.
 */
export async function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  for (let attempt = 1; ; attempt++) {
    let result: GitResult;
    try {
      result = await execGit(cwd, args, options);
    } catch (error) {
      throw new TeamError('GIT_FAILED', `git ${args[0] ?? ''} could not run: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
        details: { args: [...args], cwd },
      });
    }
    if (result.code === 0 || options.okCodes?.includes(result.code)) return result;
    if (attempt < LOCK_RETRIES && LOCK_BUSY.test(result.stderr)) {
      await sleep(LOCK_RETRY_MS);
      continue;
    }
    throw new TeamError('GIT_FAILED', `git ${args.join(' ')} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`, {
      details: { args: [...args], cwd, code: result.code, stderr: result.stderr },
    });
  }
}

/** The trimmed standard output of a git command. */
export async function gitText(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  return (await git(cwd, args, options)).stdout.trim();
}
