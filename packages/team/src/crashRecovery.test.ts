import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchRepository } from './__fixtures__/scratchRepository.js';
import type { ScratchRepository } from './__fixtures__/scratchRepository.js';

// Real child processes running a team job on a real repository and an fs record, killed with
// SIGKILL at random points; a fresh process resumes until the job ends. The result must equal
// an uninterrupted run's (the same trees; commit ids differ only by the job id they name), every
// agent commit must be this job's, no agent may run after its outcome is recorded, and no
// branch may hold a duplicate commit. FAULT_SCALE=full is the long form.

const WORKER = fileURLToPath(new URL('./__fixtures__/jobWorker.mjs', import.meta.url));
const KILLS = process.env.FAULT_SCALE === 'full' ? 60 : 6;
const AGENTS = ['alpha', 'beta', 'gamma'];

interface WorkerExit {
  stdout: string;
  killed: boolean;
  /** Milliseconds from "ready" to exit (only to pick kill points in the job's span). */
  span: number;
}

function worker(args: string[], killAfterMs?: number): Promise<WorkerExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let ready = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (ready === 0 && stdout.startsWith('ready\n')) {
        ready = Date.now();
        if (killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === null && code !== 0) reject(new Error(`worker failed (${code}): ${stderr}`));
      else resolve({ stdout, killed: signal === 'SIGKILL', span: Date.now() - ready });
    });
  });
}

const lastLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as unknown;

/** Every branch's commits since the start commit (subjects), to find duplicates. */
async function branchCommits(repo: ScratchRepository, start: string): Promise<Record<string, string[]>> {
  const branches = (await repo.git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/roundtable/'])).split('\n').filter(Boolean);
  const commits: Record<string, string[]> = {};
  for (const branch of branches) commits[branch] = (await repo.git(['log', '--format=%s', `${start}..${branch}`])).split('\n').filter(Boolean);
  return commits;
}

type JobResult = { jobId: string; startCommit: string; agents: { name: string; commit: string | null; branch: string }[]; integration: { commit: string | null } };

/**
 * A result with each commit replaced by its tree and the job id by a mark: jobs differ in their
 * job id, so in their commit ids, but never in what they hold. Checks on the way that every
 * agent commit is this job's (its parent the start commit, its trailer the job id) and is what
 * the agent's branch holds.
 */
async function comparable(repo: ScratchRepository, result: JobResult): Promise<unknown> {
  const tree = (commit: string | null) => (commit === null ? null : repo.git(['rev-parse', `${commit}^{tree}`]));
  for (const agent of result.agents) {
    if (agent.commit === null) continue;
    expect(await repo.git(['show', '-s', '--format=%P %(trailers:key=Roundtable-Job,valueonly,separator=)', agent.commit])).toBe(`${result.startCommit} ${result.jobId}`);
    expect(await repo.git(['rev-parse', agent.branch])).toBe(agent.commit);
  }
  return {
    ...result,
    jobId: 'job id',
    agents: await Promise.all(result.agents.map(async (agent) => ({ ...agent, commit: await tree(agent.commit) }))),
    integration: { ...result.integration, commit: await tree(result.integration.commit) },
  };
}

let scratch: string;
let reference: { result: Record<string, unknown>; comparable: unknown; span: number; commits: Record<string, string[]> };
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'team-crash-'));
  const repo = await scratchRepository();
  try {
    const exit = await worker(['run', repo.dir, join(scratch, 'reference-store'), join(scratch, 'reference.log')]);
    const result = lastLine(exit.stdout) as Record<string, unknown>;
    reference = { result, comparable: await comparable(repo, result as unknown as JobResult), span: exit.span, commits: await branchCommits(repo, result.startCommit as string) };
  } finally {
    await repo.remove();
  }
}, 120_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('a team job killed with SIGKILL at random points', () => {
  it('is what an uninterrupted job would be: a passed panel, three agents, six commits on the integration branch', () => {
    expect(reference.result).toMatchObject({ status: 'passed', integrated: true, review: { verdict: 'pass', passes: 1 } });
    expect(reference.commits['roundtable/crash-job/integration']).toHaveLength(6);
    for (const name of AGENTS) expect(reference.commits[`roundtable/crash-job/agent/${name}`]).toHaveLength(1);
  });

  it(`resumes to the same result after ${KILLS} kills, running no passed agent twice and duplicating no commit`, async () => {
    let kills = 0;
    let jobs = 0;
    const seen = { reruns: 0, recovered: 0 };
    while (kills < KILLS) {
      const repo = await scratchRepository();
      try {
        const before = { head: await repo.git(['rev-parse', 'HEAD']), status: await repo.git(['status', '--porcelain']) };
        const store = join(scratch, `store-${jobs}`);
        const log = join(scratch, `job-${jobs++}.log`);
        await writeFile(log, '');
        let result: unknown;
        for (;;) {
          const exit = await worker(['run', repo.dir, store, log], Math.floor(Math.random() * (reference.span + 50)));
          if (!exit.killed) {
            result = lastLine(exit.stdout);
            break;
          }
          kills++;
        }
        expect(await comparable(repo, result as JobResult)).toEqual(reference.comparable);
        expect(await branchCommits(repo, before.head)).toEqual(reference.commits);
        expect({ head: await repo.git(['rev-parse', 'HEAD']), status: await repo.git(['status', '--porcelain']) }).toEqual(before);

        const record = lastLine((await worker(['verify', store])).stdout) as { attempts: Record<string, number>; outcomes: Record<string, number>; recovered: number };
        seen.recovered += record.recovered;
        expect(Object.values(record.outcomes).every((count) => count === 1)).toBe(true);
        expect(Object.keys(record.outcomes).sort()).toEqual(['agent/alpha', 'agent/beta', 'agent/gamma', 'integration', 'review/first', 'review/second']);
        const lines = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
        expect(lines.filter((line) => line.startsWith('VIOLATION'))).toEqual([]);
        for (const name of AGENTS) {
          // Every run of an agent follows a recorded attempt start; a run the record saw finish is never repeated.
          const runs = lines.filter((line) => line.startsWith(`start ${name} `)).length;
          expect(runs).toBeLessThanOrEqual(record.attempts[`agent/${name}`]!);
          seen.reruns += Math.max(0, runs - 1);
        }
      } finally {
        await repo.remove();
      }
    }
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    // What the kills hit, for the reader: agents run again after a kill mid-run, and outcomes read back from a commit.
    console.info(`team crash suite: ${kills} kills over ${jobs} jobs; ${seen.reruns} agent reruns of unrecorded attempts; ${seen.recovered} outcomes recovered from their commit`);
  }, 900_000);
});
