import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { scratchRepository } from './__fixtures__/scratchRepository.js';
import type { ScratchRepository } from './__fixtures__/scratchRepository.js';
import { team } from './index.js';
import type { TeamAgent } from './index.js';

// The user's side of the repository is theirs: whatever state it is in, and however git is
// configured around it, a job neither changes it nor is changed by it.

const repositories: ScratchRepository[] = [];
afterEach(async () => {
  await Promise.all(repositories.splice(0).map((repository) => repository.remove()));
});

async function repository(): Promise<ScratchRepository> {
  const created = await scratchRepository();
  repositories.push(created);
  return created;
}

const writer = (name: string, file: string): TeamAgent => ({
  name,
  role: 'r',
  brief: 'b',
  run: async ({ workspace }) => {
    await writeFile(join(workspace, file), `${name}\n`);
    return { status: 'pass', summary: `${name} wrote ${file}` };
  },
});

describe("the user's repository", () => {
  it('keeps uncommitted and untracked work untouched; agents start from HEAD without it', async () => {
    const repo = await repository();
    await writeFile(join(repo.dir, 'README.md'), '# Edited, not committed\n');
    await writeFile(join(repo.dir, 'notes.txt'), 'mine\n');
    await repo.git(['add', 'README.md']);
    await writeFile(join(repo.dir, 'src/greet.js'), 'changed but not staged\n');
    const status = await repo.git(['status', '--porcelain', '--untracked-files=all']);
    const head = await repo.git(['rev-parse', 'HEAD']);
    const seen: string[] = [];
    const result = await team({
      task: 'T.',
      repository: repo.dir,
      agents: [
        {
          name: 'reader',
          role: 'r',
          brief: 'b',
          run: async ({ workspace }) => {
            seen.push(await readFile(join(workspace, 'README.md'), 'utf8'));
            await writeFile(join(workspace, 'reader.txt'), 'read\n');
            return { status: 'pass', summary: 'read' };
          },
        },
      ],
    }).run({ storage: createMemoryStorage(), runId: 'dirty' });
    expect(result.status).toBe('complete');
    expect(seen).toEqual(['# Scratch\n\nA project.\n']);
    expect(await repo.git(['status', '--porcelain', '--untracked-files=all'])).toBe(status);
    expect(await repo.git(['rev-parse', 'HEAD'])).toBe(head);
    expect(await readFile(join(repo.dir, 'src/greet.js'), 'utf8')).toBe('changed but not staged\n');
    expect(await repo.git(['diff', '--cached', '--name-only'])).toBe('README.md');
  });

  it('works from a detached HEAD and from a subdirectory, leaving HEAD detached where it was', async () => {
    const repo = await repository();
    const head = await repo.git(['rev-parse', 'HEAD']);
    await repo.git(['checkout', '--quiet', '--detach', 'HEAD']);
    const result = await team({ task: 'T.', repository: join(repo.dir, 'src'), agents: [writer('a', 'a.txt')] }).run({ storage: createMemoryStorage(), runId: 'detached' });
    expect(result).toMatchObject({ status: 'complete', startCommit: head, integrated: true });
    expect(await repo.git(['rev-parse', 'HEAD'])).toBe(head);
    expect(await repo.git(['symbolic-ref', '--quiet', 'HEAD']).catch(() => 'detached')).toBe('detached');
  });

  it("ignores the user's hooks, global and system config and GIT_* variables", async () => {
    const repo = await repository();
    const hooks = join(repo.dir, '.git', 'hooks');
    await mkdir(hooks, { recursive: true });
    const marker = join(repo.dir, '.git', 'hook-ran');
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'post-checkout', 'pre-merge-commit', 'post-merge', 'reference-transaction']) {
      await writeFile(join(hooks, hook), `#!/bin/sh\necho ${hook} >> "${marker}"\nexit 1\n`);
      await chmod(join(hooks, hook), 0o755);
    }
    const home = await mkdtemp(join(tmpdir(), 'team-home-'));
    await writeFile(
      join(home, '.gitconfig'),
      '[user]\n\tname = Someone Else\n\temail = else@example.com\n[commit]\n\tgpgSign = true\n[merge]\n\tff = only\n[core]\n\tautocrlf = true\n',
    );
    const saved = { HOME: process.env.HOME, GIT_DIR: process.env.GIT_DIR, GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME, GIT_WORK_TREE: process.env.GIT_WORK_TREE };
    process.env.HOME = home;
    process.env.GIT_DIR = join(home, 'not-a-repository');
    process.env.GIT_WORK_TREE = home;
    process.env.GIT_AUTHOR_NAME = 'Impostor';
    try {
      const result = await team({ task: 'T.', repository: repo.dir, agents: [writer('a', 'a.txt'), writer('b', 'b.txt')] }).run({
        storage: createMemoryStorage(),
        runId: 'configured',
      });
      expect(result.status).toBe('complete');
      expect(result.integration!.merged).toEqual(['a', 'b']);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await rm(home, { recursive: true, force: true });
    }
    await expect(readFile(marker, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    const authors = await repo.git(['log', '--format=%an <%ae> %cn', 'roundtable/configured/integration', '--not', 'main']);
    expect(new Set(authors.split('\n'))).toEqual(new Set(['Roundtable <roundtable@localhost> Roundtable']));
  });

  it('makes the same trees for the same work, in commits that name their own job: two jobs of one run id share no commit', async () => {
    const first = await repository();
    const second = await repository();
    const job = (dir: string) => team({ task: 'T.', repository: dir, agents: [writer('a', 'a.txt'), writer('b', 'b.txt')] });
    const one = await job(first.dir).run({ storage: createMemoryStorage(), runId: 'same' });
    const two = await job(second.dir).run({ storage: createMemoryStorage(), runId: 'same' });
    expect(two.startCommit).toBe(one.startCommit);
    expect(two.jobId).not.toBe(one.jobId);
    const commits = (result: typeof one) => [...result.agents.map((agent) => agent.commit!), result.integration!.commit!];
    const trees = (repo: ScratchRepository, result: typeof one) => Promise.all(commits(result).map((commit) => repo.git(['rev-parse', `${commit}^{tree}`])));
    expect(await trees(second, two)).toEqual(await trees(first, one));
    expect(commits(two).filter((commit) => commits(one).includes(commit))).toEqual([]);
    for (const [repo, result] of [[first, one], [second, two]] as const) {
      for (const agent of result.agents) {
        expect(await repo.git(['show', '-s', '--format=%P|%(trailers:key=Roundtable-Job,valueonly,separator=)', agent.commit!])).toBe(`${result.startCommit}|${result.jobId}`);
      }
    }
  });
});
