import { readFile, rm, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastJsonLine, runKillable } from '@roundtable/test-utils';
import { scratchRepository } from './__fixtures__/scratchRepository.js';
import type { ScratchRepository } from './__fixtures__/scratchRepository.js';

// Real child processes running a team job on a real repository and an fs record, killed with
// SIGKILL at random points of the job's progress; a fresh process resumes until the job ends.
// The result must equal an uninterrupted run's (the same trees; commit ids differ only by the
// job id they name), every agent commit must be this job's, no agent may run after its outcome
// is recorded, and no branch may hold a duplicate commit. FAULT_SCALE=full is the long form.
//
// A worker kills itself at a progress point it is given (see the fixture), never after a delay:
// a timed kill lands elsewhere in the job (or after its end) when the machine is slower or
// faster than the reference run was, so what the kills reach would depend on speed. The first
// process of each job dies at a point aimed, in turn, at a state the suite is for (an agent
// killed mid-run, which must run again; an agent's work committed but its outcome not recorded,
// which must be read back from the commit) or anywhere; the resumed processes of a job die at a
// random count of their points, or finish. The suite goes on until it has KILLS kills and has
// covered both states, which the first two jobs do on any machine: MAX_KILLS only bounds a
// broken cover, and then the test fails naming the state never reached.

const WORKER = fileURLToPath(new URL('./__fixtures__/jobWorker.mjs', import.meta.url));
const KILLS = process.env.FAULT_SCALE === 'full' ? 60 : 6;
const MAX_KILLS = 4 * KILLS;
const AGENTS = ['alpha', 'beta', 'gamma'];

const worker = (args: string[]) => runKillable(WORKER, args);
const pointsOf = (stdout: string) => stdout.split('\n').flatMap((line) => (line.startsWith('point ') ? [line.slice('point '.length)] : []));
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

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
let reference: { result: Record<string, unknown>; comparable: unknown; points: string[]; commits: Record<string, string[]> };
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'team-crash-'));
  const repo = await scratchRepository();
  try {
    const exit = await worker(['run', repo.dir, join(scratch, 'reference-store'), join(scratch, 'reference.log')]);
    const result = lastJsonLine<Record<string, unknown>>(exit.stdout);
    reference = { result, comparable: await comparable(repo, result as unknown as JobResult), points: pointsOf(exit.stdout), commits: await branchCommits(repo, result.startCommit as string) };
  } finally {
    await repo.remove();
  }
}, 120_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('a team job killed with SIGKILL at random points', () => {
  it('is what an uninterrupted job would be: a passed panel, three agents, six commits on the integration branch', () => {
    expect(reference.result).toMatchObject({ status: 'complete', integrated: true, review: { verdict: 'pass', passes: 1 } });
    expect(reference.commits['roundtable/crash-job/integration']).toHaveLength(6);
    for (const name of AGENTS) expect(reference.commits[`roundtable/crash-job/agent/${name}`]).toHaveLength(1);
  });

  it(`resumes to the same result after ${KILLS} kills, running no passed agent twice and duplicating no commit`, async () => {
    let kills = 0;
    let jobs = 0;
    const seen = { reruns: 0, recovered: 0 };
    const uncovered = () => [...(seen.reruns === 0 ? ['an agent run again after a kill mid-run'] : []), ...(seen.recovered === 0 ? ['an agent outcome recovered from its commit'] : [])];
    // Where the first kill of each job lands, in turn (a fresh process passes every one of these points):
    const aims = [
      // in an agent's run, after its attempt started: the agent runs again;
      reference.points.filter((point) => /^(alpha|beta|gamma) (started|wrote )/.test(point)),
      // after an agent's work was committed, before its outcome was recorded: the outcome is read back from the commit;
      reference.points.filter((point) => point.startsWith('before graph:node-completed agent/')),
      // anywhere.
      reference.points,
    ];
    for (const points of aims) expect(points.length).toBeGreaterThan(0);
    while ((kills < KILLS || uncovered().length > 0) && kills < MAX_KILLS) {
      const aimed = aims[jobs % aims.length]!;
      const repo = await scratchRepository();
      try {
        const before = { head: await repo.git(['rev-parse', 'HEAD']), status: await repo.git(['status', '--porcelain']) };
        const store = join(scratch, `store-${jobs}`);
        const log = join(scratch, `job-${jobs++}.log`);
        await writeFile(log, '');
        // The first process dies at the aimed point; a resumed one at a random count of its points, or it finishes.
        const aim = pick(aimed);
        let exit = await worker(['run', repo.dir, store, log, aim]);
        expect(exit.killed, `a fresh job's process passes "${aim}"`).toBe(true);
        while (exit.killed) {
          kills++;
          exit = await worker(['run', repo.dir, store, log, `#${1 + Math.floor(Math.random() * reference.points.length)}`]);
        }
        const result = lastJsonLine(exit.stdout);
        expect(await comparable(repo, result as JobResult)).toEqual(reference.comparable);
        expect(await branchCommits(repo, before.head)).toEqual(reference.commits);
        expect({ head: await repo.git(['rev-parse', 'HEAD']), status: await repo.git(['status', '--porcelain']) }).toEqual(before);

        const record = lastJsonLine<{ attempts: Record<string, number>; outcomes: Record<string, number>; recovered: number }>((await worker(['verify', store])).stdout);
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
    // The kills reached what the suite is for: agents run again after a kill mid-run, and outcomes read back from a commit.
    expect(uncovered(), `not covered within ${MAX_KILLS} kills`).toEqual([]);
    console.info(`team crash suite: ${kills} kills over ${jobs} jobs; ${seen.reruns} agent reruns of unrecorded attempts; ${seen.recovered} outcomes recovered from their commit`);
  }, 900_000);
});
