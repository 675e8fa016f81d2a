import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { RunStorage } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import type { TeamJobResult } from '@roundtable/team';
import { PROJECT_FILES, greetJob } from './greetJob.js';

const execFileAsync = promisify(execFile);

export interface TeamJobReport {
  readonly ok: boolean;
  readonly result: TeamJobResult;
  /** The user's branch and HEAD before and after, and `git status --porcelain` after. */
  readonly user: { readonly branch: string; readonly headBefore: string; readonly headAfter: string; readonly status: string };
  readonly integratedLog: readonly string[];
  readonly checks: readonly { name: string; ok: boolean }[];
  readonly keptIn: string | null;
}

const RUN_ID = 'greet-job';

/** The user's own git, with the user's identity, for making the scratch repository. */
async function userGit(cwd: string, args: readonly string[]): Promise<string> {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Demo User',
    GIT_AUTHOR_EMAIL: 'user@example.com',
    GIT_COMMITTER_NAME: 'Demo User',
    GIT_COMMITTER_EMAIL: 'user@example.com',
  };
  return (await execFileAsync('git', [...args], { cwd, env })).stdout.trim();
}

async function scratchRepository(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true });
  await userGit(directory, ['init', '--quiet', '--initial-branch=main']);
  for (const [path, text] of Object.entries(PROJECT_FILES)) {
    await mkdir(dirname(join(directory, path)), { recursive: true });
    await writeFile(join(directory, path), text);
  }
  await userGit(directory, ['add', '--all']);
  await userGit(directory, ['commit', '--quiet', '-m', 'Start the greet project']);
}

async function streamHead(storage: RunStorage): Promise<number> {
  return storage.head(RUN_ID);
}

/**
 * The callable team end to end: a scratch repository, the job on an fs record outside it,
 * a fresh storage instance and job that replay it without running anything, checks, cleanup.
 */
export async function runTeamJob(options: { keep?: string } = {}): Promise<TeamJobReport> {
  const directory = options.keep === undefined ? await mkdtemp(join(tmpdir(), 'roundtable-team-job-')) : resolve(options.keep);
  const repository = join(directory, 'repository');
  const record = join(directory, 'record');
  try {
    await scratchRepository(repository);
    const branch = await userGit(repository, ['symbolic-ref', '--short', 'HEAD']);
    const headBefore = await userGit(repository, ['rev-parse', 'HEAD']);

    const storage = createFsStorage({ directory: record });
    const result = await greetJob(repository).run({ storage, runId: RUN_ID });
    const head = await streamHead(storage);
    await storage.close();

    // A fresh process would do this: reopen the record and ask again. Nothing runs or is appended.
    const reopened = createFsStorage({ directory: record });
    const replayed = await greetJob(repository).run({ storage: reopened, runId: RUN_ID });
    const headAfterReplay = await streamHead(reopened);
    await reopened.close();

    const headAfter = await userGit(repository, ['rev-parse', 'HEAD']);
    const status = await userGit(repository, ['status', '--porcelain', '--untracked-files=all']);
    const integration = result.integration?.commit ?? null;
    const integratedLog = integration === null ? [] : (await userGit(repository, ['log', '--format=%h %an: %s', `${headBefore}..${integration}`])).split('\n');
    const holds = async (commit: string | null) =>
      commit !== null && integration !== null && (await userGit(repository, ['merge-base', '--is-ancestor', commit, integration]).then(() => true, () => false));
    const checks = [
      { name: 'the job passed', ok: result.status === 'complete' },
      { name: 'both agents passed and committed', ok: result.agents.every((agent) => agent.outcome === 'pass' && agent.commit !== null) },
      { name: 'the integration branch holds both commits', ok: result.integrated && (await holds(result.agents[0]!.commit)) && (await holds(result.agents[1]!.commit)) },
      { name: 'the one-reviewer panel passed it', ok: result.review?.verdict === 'pass' },
      { name: "the user's branch and HEAD are unchanged", ok: headAfter === headBefore && (await userGit(repository, ['symbolic-ref', '--short', 'HEAD'])) === branch },
      { name: "the user's working tree is clean", ok: status === '' },
      { name: 'the replay from a fresh storage instance returned the same result', ok: JSON.stringify(replayed) === JSON.stringify(result) },
      { name: 'the replay appended nothing', ok: headAfterReplay === head },
    ];
    return {
      ok: checks.every((check) => check.ok),
      result,
      user: { branch, headBefore, headAfter, status },
      integratedLog,
      checks,
      keptIn: options.keep === undefined ? null : directory,
    };
  } finally {
    if (options.keep === undefined) await rm(directory, { recursive: true, force: true });
  }
}
