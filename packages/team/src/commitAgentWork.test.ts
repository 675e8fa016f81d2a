import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { commitAll, commitMarks, crashSwitch, dyingStorage, recordedOutcomes, refsOf, resumeToEnd, scratchRepositories } from './__fixtures__/jobFixtures.js';
import type { ScratchRepository } from './__fixtures__/scratchRepository.js';
import { isTeamError, team } from './index.js';
import type { AgentRunInput, TeamConfig } from './index.js';

// The runtime's commit of an agent's work: one commit on the job's start commit, naming the job,
// on the agent's own branch whatever the agent did with its worktree's HEAD; and only such a
// commit ever stands for an agent's outcome.

const repository = scratchRepositories();

/** A one-agent config whose agent runs `git` commands and writes files in its workspace. */
function gitAgent(repo: ScratchRepository, steps: (workspace: string) => Promise<void>, calls: AgentRunInput[] = []): TeamConfig {
  return {
    task: 'T.',
    repository: repo.dir,
    agents: [
      {
        name: 'agent',
        role: 'r',
        brief: 'b',
        run: async (input) => {
          calls.push(input);
          await steps(input.workspace);
          return { status: 'pass', summary: 'did things', data: { steps: true } };
        },
      },
    ],
  };
}

const write = (workspace: string, file: string) => writeFile(join(workspace, file), `${file}\n`);

async function treeFiles(repo: ScratchRepository, commit: string): Promise<string[]> {
  return (await repo.git(['ls-tree', '-r', '--name-only', commit])).split('\n');
}

describe("the runtime's commit of an agent's work", () => {
  it('goes to the agent branch when the agent checked out another branch; that branch keeps what the agent put there', async () => {
    const repo = await repository();
    const calls: AgentRunInput[] = [];
    const storage = createMemoryStorage();
    const config = gitAgent(repo, async (workspace) => {
      await repo.git(['checkout', '--quiet', '-b', 'side'], workspace);
      await write(workspace, 'committed.txt');
      await commitAll(repo, workspace, 'On side');
      await write(workspace, 'loose.txt');
    }, calls);
    const result = await team(config).run({ storage: dyingStorage(storage), runId: 'checkout' }).catch((error: unknown) => error);
    expect(result).toMatchObject({ message: 'power cut' });
    const side = await repo.git(['rev-parse', 'side']);
    expect(await repo.git(['log', '-1', '--format=%s', side])).toBe('On side');

    // The process died after the commit, before its outcome was recorded: the outcome is read back.
    const done = await resumeToEnd(team(config), storage, 'checkout');
    expect(calls).toHaveLength(1);
    const [agent] = done.agents;
    expect(agent).toMatchObject({ outcome: 'pass', summary: 'did things', data: { steps: true } });
    expect(await commitMarks(repo, agent!.commit!)).toEqual({ parents: done.startCommit, run: 'checkout', job: done.jobId, agent: 'agent' });
    expect(await repo.git(['rev-parse', 'roundtable/checkout/agent/agent'])).toBe(agent!.commit);
    expect(await treeFiles(repo, agent!.commit!)).toEqual(['README.md', 'committed.txt', 'loose.txt', 'src/greet.js']);
    expect(await repo.git(['rev-parse', 'side'])).toBe(side);
    // The worktree is back on its branch, with nothing left over.
    expect(await repo.git(['symbolic-ref', 'HEAD'], calls[0]!.workspace)).toBe('refs/heads/roundtable/checkout/agent/agent');
    expect(await repo.git(['status', '--porcelain'], calls[0]!.workspace)).toBe('');
    expect(await repo.git(['show', `${done.integration!.commit}:loose.txt`])).toBe('loose.txt');
  });

  it("squashes the agent's own commits, on its branch or a detached HEAD, into one commit on the start commit", async () => {
    const repo = await repository();
    const own = gitAgent(repo, async (workspace) => {
      await write(workspace, 'one.txt');
      await commitAll(repo, workspace, 'Agent commit on its branch');
      await repo.git(['checkout', '--quiet', '--detach'], workspace);
      await write(workspace, 'two.txt');
      await commitAll(repo, workspace, 'Agent commit on a detached HEAD');
    });
    const result = await team(own).run({ storage: createMemoryStorage(), runId: 'own' });
    const commit = result.agents[0]!.commit!;
    expect(await commitMarks(repo, commit)).toEqual({ parents: result.startCommit, run: 'own', job: result.jobId, agent: 'agent' });
    expect(await repo.git(['rev-parse', 'roundtable/own/agent/agent'])).toBe(commit);
    expect(await treeFiles(repo, commit)).toEqual(['README.md', 'one.txt', 'src/greet.js', 'two.txt']);
    expect(await repo.git(['rev-list', '--count', `${result.startCommit}..${result.integration!.commit}`])).toBe('2');
  });

  it('leaves the agent branch at the start commit when the agent changed nothing, even after committing and reverting', async () => {
    const repo = await repository();
    const config = gitAgent(repo, async (workspace) => {
      await write(workspace, 'gone.txt');
      await commitAll(repo, workspace, 'Add');
      await repo.git(['rm', '--quiet', 'gone.txt'], workspace);
      await repo.git(['commit', '--quiet', '-m', 'Remove'], workspace);
    });
    const result = await team(config).run({ storage: createMemoryStorage(), runId: 'nothing' });
    expect(result.agents[0]).toMatchObject({ outcome: 'pass', commit: null });
    expect(await repo.git(['rev-parse', 'roundtable/nothing/agent/agent'])).toBe(result.startCommit);
  });
});

describe('only a commit of this job stands for an agent outcome', () => {
  it('a new job that reuses a run id after the repository moved on never returns the old job’s commit', async () => {
    const repo = await repository();
    const calls: AgentRunInput[] = [];
    const config = gitAgent(repo, (workspace) => write(workspace, `work-${calls.length}.txt`), calls);
    const old = await team(config).run({ storage: createMemoryStorage(), runId: 'reused' });
    await writeFile(join(repo.dir, 'later.txt'), 'later\n');
    await repo.git(['add', 'later.txt']);
    await repo.git(['commit', '--quiet', '-m', 'The repository moves on']);
    const head = await repo.git(['rev-parse', 'HEAD']);

    // A fresh record: another job. The old job's branches are in its way.
    const fresh = createMemoryStorage();
    await expect(team(config).run({ storage: fresh, runId: 'reused' })).rejects.toSatisfy((error: unknown) => isTeamError(error, 'REF_EXISTS'));
    expect(calls).toHaveLength(1);
    expect(await fresh.head('reused')).toBe(0);

    // Once the user deletes them (their worktrees stay), the new job runs its agent on the new HEAD.
    for (const ref of Object.keys(await refsOf(repo)).filter((name) => name.startsWith('refs/heads/roundtable/reused/'))) await repo.git(['update-ref', '-d', ref]);
    const next = await team(config).run({ storage: fresh, runId: 'reused' });
    expect(calls).toHaveLength(2);
    expect(next.jobId).not.toBe(old.jobId);
    expect(next.startCommit).toBe(head);
    const commit = next.agents[0]!.commit!;
    expect(commit).not.toBe(old.agents[0]!.commit);
    expect(await commitMarks(repo, commit)).toEqual({ parents: head, run: 'reused', job: next.jobId, agent: 'agent' });
    expect(await treeFiles(repo, commit)).toEqual(['README.md', 'later.txt', 'src/greet.js', 'work-2.txt']);
  });

  it("a commit of another job on this job's branch is refused, even with a reflog entry naming this job", async () => {
    const repo = await repository();
    const other = await team(gitAgent(repo, (workspace) => write(workspace, 'old.txt'))).run({ storage: createMemoryStorage(), runId: 'forged' });
    const stale = other.agents[0]!.commit!;
    for (const ref of Object.keys(await refsOf(repo)).filter((name) => name.startsWith('refs/heads/roundtable/forged/'))) await repo.git(['update-ref', '-d', ref]);

    const { signal, crash } = crashSwitch();
    const calls: AgentRunInput[] = [];
    const config = gitAgent(repo, () => (calls.length === 1 ? crash() : Promise.resolve()), calls);
    const storage = createMemoryStorage();
    await expect(team(config).run({ storage, runId: 'forged', signal })).rejects.toMatchObject({ code: 'ABORTED' });
    const waiting = await team(config).run({ storage, runId: 'forged' });
    // The old job's commit (same run id, same agent, same start commit) put on the branch as if by this job.
    await repo.git(['update-ref', '-m', `roundtable job ${waiting.jobId}: commit agent agent`, 'refs/heads/roundtable/forged/agent/agent', stale]);
    await expect(team(config).resume({ storage, runId: 'forged', position: 'agent/agent' })).rejects.toSatisfy(
      (error: unknown) => isTeamError(error, 'REF_EXISTS') && error.details?.commit === stale,
    );
    expect(await recordedOutcomes(storage, 'forged')).toEqual([]);
    expect(await repo.git(['rev-parse', 'roundtable/forged/agent/agent'])).toBe(stale);
  });
});
