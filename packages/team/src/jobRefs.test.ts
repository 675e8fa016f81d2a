import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { commitMarks, crashSwitch, recordedOutcomes, refsOf, resumeToEnd, scratchRepositories } from './__fixtures__/jobFixtures.js';
import type { ScratchRepository } from './__fixtures__/scratchRepository.js';
import { isTeamError, team } from './index.js';
import type { TeamAgent, TeamConfig } from './index.js';

// A job moves and deletes no ref it did not make: a ref it must make that is already there, or
// one of its own that someone moved, is REF_EXISTS naming the ref, and nothing is made or moved.

const repository = scratchRepositories();

const writer = (name: string, calls: string[], before?: () => Promise<void>): TeamAgent => ({
  name,
  role: 'r',
  brief: 'b',
  run: async ({ workspace }) => {
    calls.push(name);
    await before?.();
    await writeFile(join(workspace, `${name}.txt`), `${name}\n`);
    return { status: 'pass', summary: `${name} wrote ${name}.txt` };
  },
});

/** A commit of the user's that only the ref `name` holds. */
async function userBranch(repo: ScratchRepository, name: string): Promise<string> {
  await repo.git(['checkout', '--quiet', '-b', name]);
  await writeFile(join(repo.dir, 'mine.txt'), 'mine\n');
  await repo.git(['add', 'mine.txt']);
  await repo.git(['commit', '--quiet', '-m', 'My work']);
  const commit = await repo.git(['rev-parse', 'HEAD']);
  await repo.git(['checkout', '--quiet', 'main']);
  return commit;
}

const refExists = (ref: string, moved: boolean) => (error: unknown) =>
  isTeamError(error, 'REF_EXISTS') && error.details?.ref === ref && error.details.moved === moved && error.message.includes(ref);

describe('a job refuses a ref it did not make (REF_EXISTS), before making anything', () => {
  it("refuses an agent branch the user made beforehand, leaving the user's commit on it", async () => {
    const repo = await repository();
    const mine = await userBranch(repo, 'roundtable/pre/agent/b');
    const before = { refs: await refsOf(repo), worktrees: await repo.git(['worktree', 'list', '--porcelain']) };
    const calls: string[] = [];
    const storage = createMemoryStorage();
    const job = team({ task: 'T.', repository: repo.dir, agents: [writer('a', calls), writer('b', calls)] });
    await expect(job.run({ storage, runId: 'pre' })).rejects.toSatisfy(refExists('refs/heads/roundtable/pre/agent/b', false));
    expect(await refsOf(repo)).toEqual(before.refs);
    expect(before.refs['refs/heads/roundtable/pre/agent/b']).toBe(mine);
    expect(await repo.git(['worktree', 'list', '--porcelain'])).toBe(before.worktrees);
    expect(await storage.head('pre')).toBe(0);
    expect(calls).toEqual([]);
  });

  it('refuses an integration branch made beforehand, even one at the start commit', async () => {
    const repo = await repository();
    await repo.git(['branch', 'roundtable/pre/integration']);
    const before = await refsOf(repo);
    const calls: string[] = [];
    const storage = createMemoryStorage();
    await expect(team({ task: 'T.', repository: repo.dir, agents: [writer('a', calls)] }).run({ storage, runId: 'pre' })).rejects.toSatisfy(
      refExists('refs/heads/roundtable/pre/integration', false),
    );
    expect(await refsOf(repo)).toEqual(before);
    expect(await storage.head('pre')).toBe(0);
    expect(calls).toEqual([]);
    // Without the integration the job makes no integration branch, so that one is not in its way.
    const alone = await team({ task: 'T.', repository: repo.dir, integrate: false, agents: [writer('a', calls)] }).run({ storage, runId: 'pre' });
    expect(alone.status).toBe('complete');
    expect((await refsOf(repo))['refs/heads/roundtable/pre/integration']).toBe(before['refs/heads/roundtable/pre/integration']);
  });
});

describe('after a crash, a job moves its own refs only from where it left them', () => {
  /** A two-agent job whose agent `a` crashes on its first run, and the user's `meanwhile` before it resumes. */
  async function crashedJob(repo: ScratchRepository, runId: string) {
    const { signal, crash } = crashSwitch();
    const calls: string[] = [];
    const config: TeamConfig = { task: 'T.', repository: repo.dir, concurrency: 1, agents: [writer('a', calls, () => (calls.length === 1 ? crash() : Promise.resolve())), writer('b', calls)] };
    const storage = createMemoryStorage();
    await expect(team(config).run({ storage, runId, signal })).rejects.toMatchObject({ code: 'ABORTED' });
    const waiting = await team(config).run({ storage, runId });
    expect(waiting.waiting).toEqual(['agent/a']);
    return { job: team(config), storage, calls, waiting };
  }

  it('refuses an agent branch the user deleted and made again, until the user deletes it; then the agent runs again', async () => {
    const repo = await repository();
    const { job, storage, calls, waiting } = await crashedJob(repo, 'again');
    const ref = 'refs/heads/roundtable/again/agent/a';
    await repo.git(['update-ref', '-d', ref]);
    const mine = await userBranch(repo, 'roundtable/again/agent/a');
    const before = await refsOf(repo);
    const head = await storage.head('again');
    await expect(job.resume({ storage, runId: 'again', position: 'agent/a' })).rejects.toSatisfy(refExists(ref, false));
    expect(await refsOf(repo)).toEqual(before);
    expect(before[ref]).toBe(mine);
    expect(await storage.head('again')).toBe(head);
    expect(calls).toEqual(['a']);

    await repo.git(['update-ref', '-d', ref]);
    const done = await resumeToEnd(job, storage, 'again');
    expect(done.status).toBe('complete');
    expect(calls).toEqual(['a', 'a', 'b']);
    expect(await commitMarks(repo, done.agents[0]!.commit!)).toEqual({ parents: waiting.startCommit, run: 'again', job: waiting.jobId, agent: 'a' });
    expect(await repo.git(['rev-parse', ref])).toBe(done.agents[0]!.commit);
  });

  it('refuses an agent branch the user moved, naming it as moved, and leaves it where the user put it', async () => {
    const repo = await repository();
    const { job, storage, calls } = await crashedJob(repo, 'moved');
    const mine = await userBranch(repo, 'elsewhere');
    const ref = 'refs/heads/roundtable/moved/agent/a';
    await repo.git(['update-ref', ref, mine]);
    const before = await refsOf(repo);
    await expect(job.resume({ storage, runId: 'moved', position: 'agent/a' })).rejects.toSatisfy(refExists(ref, true));
    expect(await refsOf(repo)).toEqual(before);
    expect(await recordedOutcomes(storage, 'moved')).toEqual([]);
    expect(calls).toEqual(['a']);
  });

  it('checks only the refs the rest of the job makes: a settled agent’s branch is left to the user', async () => {
    const repo = await repository();
    const { signal, crash } = crashSwitch();
    const calls: string[] = [];
    const config: TeamConfig = { task: 'T.', repository: repo.dir, concurrency: 1, agents: [writer('a', calls), writer('b', calls, () => (calls.length === 2 ? crash() : Promise.resolve()))] };
    const storage = createMemoryStorage();
    await expect(team(config).run({ storage, runId: 'settled', signal })).rejects.toMatchObject({ code: 'ABORTED' });
    // The user builds on agent a's branch, whose outcome is recorded, while the job is down.
    const workspace = join(await repo.git(['rev-parse', '--path-format=absolute', '--git-common-dir']), 'roundtable', 'worktrees', 'settled', 'agent', 'a');
    await writeFile(join(workspace, 'more.txt'), 'more\n');
    await repo.git(['add', 'more.txt'], workspace);
    await repo.git(['commit', '--quiet', '-m', 'More on a'], workspace);
    const built = await repo.git(['rev-parse', 'roundtable/settled/agent/a']);
    const done = await resumeToEnd(team(config), storage, 'settled');
    expect(done.status).toBe('complete');
    expect(calls).toEqual(['a', 'b', 'b']);
    expect(await repo.git(['rev-parse', 'roundtable/settled/agent/a'])).toBe(built);
    expect(done.integration!.merged).toEqual(['a', 'b']);
    expect(await repo.git(['show', `${done.integration!.commit}:a.txt`])).toBe('a');
  });
});
