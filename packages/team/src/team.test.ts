import { existsSync } from 'node:fs';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileGraph, foldStream } from '@roundtable/graph';
import type { GraphDefinition } from '@roundtable/graph';
import { loadRunDefinition } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { dyingStorage } from './__fixtures__/jobFixtures.js';
import { scratchRepository } from './__fixtures__/scratchRepository.js';
import type { ScratchRepository } from './__fixtures__/scratchRepository.js';
import { isTeamError, team, teamJobGraphType } from './index.js';
import type { AgentRunInput, TeamAgent, TeamConfig } from './index.js';

const repositories: ScratchRepository[] = [];
afterEach(async () => {
  await Promise.all(repositories.splice(0).map((repository) => repository.remove()));
});

async function repository(files?: Record<string, string>): Promise<ScratchRepository> {
  const created = await scratchRepository(files);
  repositories.push(created);
  return created;
}

/** An agent that writes `text` to `file` in its workspace and passes. */
function writer(name: string, file: string, text: string, calls?: AgentRunInput[]): TeamAgent {
  return {
    name,
    role: `${name} role`,
    brief: `Write ${file}.`,
    run: async (input) => {
      calls?.push(input);
      await writeFile(join(input.workspace, file), text);
      return { status: 'pass', summary: `${name} wrote ${file}`, data: { file } };
    },
  };
}

async function streamHead(storage: RunStorage, runId: string): Promise<number> {
  return storage.head(runId);
}

/** The user's side of the repository: branch, HEAD and a clean working tree. */
async function userView(repo: ScratchRepository) {
  return {
    branch: await repo.git(['symbolic-ref', '--short', 'HEAD']),
    head: await repo.git(['rev-parse', 'HEAD']),
    status: await repo.git(['status', '--porcelain', '--untracked-files=all']),
  };
}

describe('team(config): two agents, integration', () => {
  it('commits each passing agent, merges both into the integration branch and leaves the user alone', async () => {
    const repo = await repository();
    const before = await userView(repo);
    const calls: AgentRunInput[] = [];
    const job = team({
      task: 'Greet politely.',
      repository: repo.dir,
      agents: [writer('coder', 'src/greet.js', "export const greet = (name) => `Hello, ${name}!`;\n", calls), writer('tester', 'src/greet.test.js', 'test\n', calls)],
    });
    const storage = createMemoryStorage();
    const result = await job.run({ storage, runId: 'job-1' });

    expect(result.status).toBe('complete');
    expect(result.failure).toBeNull();
    expect(result.integrated).toBe(true);
    expect(result.startCommit).toBe(before.head);
    expect(result.agents.map(({ name, role, outcome }) => ({ name, role, outcome }))).toEqual([
      { name: 'coder', role: 'coder role', outcome: 'pass' },
      { name: 'tester', role: 'tester role', outcome: 'pass' },
    ]);
    expect(calls.map((call) => call.prompt).sort()).toEqual([
      'Task: Greet politely.\n\nRole: coder role\n\nBrief: Write src/greet.js.',
      'Task: Greet politely.\n\nRole: tester role\n\nBrief: Write src/greet.test.js.',
    ]);
    // Worktrees live inside the git directory by default, on the agents' own branches.
    const gitDir = await repo.git(['rev-parse', '--path-format=absolute', '--git-common-dir']);
    for (const call of calls) expect(call.workspace.startsWith(join(gitDir, 'roundtable', 'worktrees', 'job-1', 'agent'))).toBe(true);

    const [coder, tester] = result.agents;
    expect(await repo.git(['rev-parse', 'roundtable/job-1/agent/coder'])).toBe(coder!.commit);
    expect(await repo.git(['rev-parse', 'roundtable/job-1/agent/tester'])).toBe(tester!.commit);
    expect(await repo.git(['rev-list', '--count', `${before.head}..${coder!.commit}`])).toBe('1');
    expect(await repo.git(['log', '-1', '--format=%an <%ae>|%cn <%ce>', coder!.commit!])).toBe('Roundtable <roundtable@localhost>|Roundtable <roundtable@localhost>');

    expect(result.integration).toMatchObject({ branch: 'roundtable/job-1/integration', merged: ['coder', 'tester'], conflict: null });
    const integrated = result.integration!.commit!;
    expect(await repo.git(['rev-parse', 'roundtable/job-1/integration'])).toBe(integrated);
    for (const agent of result.agents) await repo.git(['merge-base', '--is-ancestor', agent.commit!, integrated]);
    expect(await repo.git(['show', `${integrated}:src/greet.test.js`])).toBe('test');
    expect((await repo.git(['show', `${integrated}:src/greet.js`])).includes('Hello, ${name}!')).toBe(true);
    // Merged in declaration order: coder first.
    expect(await repo.git(['log', '--format=%s', '--first-parent', `${before.head}..${integrated}`])).toBe(
      'Merge agent tester (job-1)\nMerge agent coder (job-1)',
    );

    expect(await userView(repo)).toEqual(before);
    expect(before.status).toBe('');
  });

  it('replays a finished job from its record: nothing runs, nothing is appended, the repository is not consulted', async () => {
    const repo = await repository();
    const calls: AgentRunInput[] = [];
    const config: TeamConfig = { task: 'Two files.', repository: repo.dir, agents: [writer('a', 'a.txt', 'a\n', calls), writer('b', 'b.txt', 'b\n', calls)] };
    const storage = createMemoryStorage();
    const first = await team(config).run({ storage, runId: 'replay' });
    const head = await streamHead(storage, 'replay');
    await repo.remove();
    const again = await team(config).run({ storage, runId: 'replay' });
    expect(again).toEqual(first);
    expect(await streamHead(storage, 'replay')).toBe(head);
    expect(calls).toHaveLength(2);
  });

  it('records every agent outcome, commit, the integration and summaries in standard graph events', async () => {
    const repo = await repository();
    const storage = createMemoryStorage();
    const result = await team({ task: 'Record.', repository: repo.dir, agents: [writer('a', 'a.txt', 'a\n'), writer('b', 'b.txt', 'b\n')] }).run({ storage, runId: 'rec' });
    const events = [];
    for await (const event of storage.read('rec')) events.push(event);
    expect(events.every((event) => event.type.startsWith('graph:'))).toBe(true);
    const completed = events.filter((event) => event.type === 'graph:node-completed').map((event) => event.payload as { nodeId: string; result: { summary: string; commit?: string } });
    expect(completed.map((event) => event.nodeId).sort()).toEqual(['agent/a', 'agent/b', 'integration']);
    for (const event of completed) expect(typeof event.result.summary).toBe('string');
    expect(completed.find((event) => event.nodeId === 'agent/a')!.result.commit).toBe(result.agents[0]!.commit);
    expect(completed.find((event) => event.nodeId === 'integration')!.result.commit).toBe(result.integration!.commit);
    const started = events[0]!.payload as { definition: { kind: string; typeVersion: number } };
    expect(started.definition).toMatchObject({ kind: 'team-job', typeVersion: 1 });

    // A tool that knows only the graph type (the CLI's registry) folds the record strictly and reaches the same outcome.
    const stored = (await loadRunDefinition(storage, 'rec'))!;
    const graph = compileGraph(teamJobGraphType, stored.value as unknown as GraphDefinition);
    expect(graph.definition.digest).toBe(stored.digest);
    const folder = await foldStream(storage, 'rec', { graph });
    expect(graph.decide(folder.state)).toEqual([{ kind: 'complete', output: expect.objectContaining({ integrated: true, agents: result.agents }) }]);
  });

  it('fails with INTEGRATION_CONFLICT naming both agents when they change the same lines, keeping their branches', async () => {
    const repo = await repository();
    const before = await userView(repo);
    const job = team({
      task: 'Rewrite the README.',
      repository: repo.dir,
      agents: [writer('left', 'README.md', '# Left\n'), writer('middle', 'other.txt', 'x\n'), writer('right', 'README.md', '# Right\n')],
    });
    const result = await job.run({ storage: createMemoryStorage(), runId: 'conflict' });
    expect(result.status).toBe('failed');
    expect(result.failure).toMatchObject({ code: 'INTEGRATION_CONFLICT', agents: ['left', 'right'] });
    expect(result.failure!.message).toContain('left and right');
    expect(result.integrated).toBe(false);
    expect(result.integration!.conflict).toEqual({ agents: ['left', 'right'], files: ['README.md'] });
    for (const agent of result.agents) {
      expect(agent.outcome).toBe('pass');
      expect(await repo.git(['rev-parse', `roundtable/conflict/agent/${agent.name}`])).toBe(agent.commit);
    }
    expect(await repo.git(['show', 'roundtable/conflict/agent/right:README.md'])).toBe('# Right');
    expect(await userView(repo)).toEqual(before);
  });

  it('does not integrate when an agent fails, and keeps the failed worktree as it was', async () => {
    const repo = await repository();
    let failedWorkspace = '';
    const job = team({
      task: 'Try.',
      repository: repo.dir,
      agents: [
        writer('good', 'good.txt', 'good\n'),
        {
          name: 'bad',
          role: 'r',
          brief: 'b',
          run: async ({ workspace }) => {
            failedWorkspace = workspace;
            await writeFile(join(workspace, 'half-done.txt'), 'half\n');
            return { status: 'fail', summary: 'Could not finish.', data: { reason: 'tests' } };
          },
        },
        { name: 'thrower', role: 'r', brief: 'b', run: () => Promise.reject(new Error('model unavailable')) },
      ],
    });
    const result = await job.run({ storage: createMemoryStorage(), runId: 'failing' });
    expect(result.status).toBe('failed');
    expect(result.failure).toMatchObject({ code: 'AGENT_FAILED', agents: ['bad', 'thrower'] });
    expect(result.integrated).toBe(false);
    expect(result.integration).toBeNull();
    expect(result.agents).toMatchObject([
      { name: 'good', outcome: 'pass', error: null },
      { name: 'bad', outcome: 'fail', commit: null, summary: 'Could not finish.', data: { reason: 'tests' } },
      { name: 'thrower', outcome: 'fail', commit: null, error: { code: 'EFFECT_FAILED', message: 'model unavailable' } },
    ]);
    expect(result.agents[0]!.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(await readFile(join(failedWorkspace, 'half-done.txt'), 'utf8')).toBe('half\n');
    expect(await repo.git(['status', '--porcelain'], failedWorkspace)).toBe('?? half-done.txt');
    expect(await repo.git(['branch', '--list', 'roundtable/failing/integration'])).toBe('');
  });

  it('gives commit null to an agent that passes without changing anything', async () => {
    const repo = await repository();
    const result = await team({
      task: 'Look only.',
      repository: repo.dir,
      agents: [{ name: 'reader', role: 'r', brief: 'b', run: () => ({ status: 'pass', summary: 'Nothing to do.' }) }, writer('w', 'w.txt', 'w\n')],
    }).run({ storage: createMemoryStorage(), runId: 'noop' });
    expect(result.status).toBe('complete');
    expect(result.agents[0]).toMatchObject({ outcome: 'pass', commit: null, data: null });
    expect(result.integration!.merged).toEqual(['w']);
  });

  it('with integrate false, commits the agents and merges nothing', async () => {
    const repo = await repository();
    const result = await team({ task: 'Alone.', repository: repo.dir, integrate: false, agents: [writer('a', 'a.txt', 'a\n')] }).run({
      storage: createMemoryStorage(),
      runId: 'no-merge',
    });
    expect(result).toMatchObject({ status: 'complete', integrated: false, integration: null, review: null });
    expect(await repo.git(['branch', '--list', 'roundtable/no-merge/integration'])).toBe('');
    expect(result.agents[0]!.commit).toBe(await repo.git(['rev-parse', 'roundtable/no-merge/agent/a']));
  });

  it('runs at most `concurrency` agents at once, and all at once by default', async () => {
    const repo = await repository();
    const agents = (count: number, stats: { running: number; most: number; limit?: number }): TeamAgent[] =>
      Array.from({ length: count }, (_, index) => ({
        name: `agent-${index}`,
        role: 'r',
        brief: 'b',
        run: async ({ workspace }) => {
          stats.running++;
          stats.most = Math.max(stats.most, stats.running);
          // Wait until every agent that may run at once has started (or this is the last batch).
          // The bound (10 s or more) only keeps a broken limit from hanging: agents start as their
          // worktrees are made, which a loaded machine slows, and `most` must not depend on that.
          for (let spins = 0; spins < 2000 && stats.running < Math.min(count, stats.limit ?? count); spins++) await new Promise((done) => setTimeout(done, 5));
          await writeFile(join(workspace, `f${index}.txt`), `${index}\n`);
          stats.running--;
          return { status: 'pass', summary: 'done' };
        },
      }));
    const serial = { running: 0, most: 0, limit: 1 };
    await team({ task: 'Serial.', repository: repo.dir, agents: agents(3, serial), concurrency: 1 }).run({ storage: createMemoryStorage(), runId: 'serial' });
    expect(serial.most).toBe(1);
    const parallel = { running: 0, most: 0 };
    await team({ task: 'Parallel.', repository: repo.dir, agents: agents(3, parallel) }).run({ storage: createMemoryStorage(), runId: 'parallel' });
    expect(parallel.most).toBe(3);
  });
});

describe('team(config): review', () => {
  const reviewer = (name: string, status: 'pass' | 'fail', seen?: unknown[]) => ({
    name,
    run: (input: { task: string; agents: readonly unknown[]; diff: string }) => {
      seen?.push(input);
      return { status, summary: `${name} says ${status}` };
    },
  });

  it('passes a panel with threshold 2 when 2 of 3 reviewers pass; each reviewer sees the task, the summaries and the diff', async () => {
    const repo = await repository();
    const seen: { task: string; agents: unknown[]; diff: string }[] = [];
    const result = await team({
      task: 'Review me.',
      repository: repo.dir,
      agents: [writer('a', 'a.txt', 'alpha\n'), writer('b', 'b.txt', 'beta\n')],
      review: { kind: 'panel', threshold: 2, reviewers: [reviewer('r1', 'pass', seen), reviewer('r2', 'fail', seen), reviewer('r3', 'pass', seen)] },
    }).run({ storage: createMemoryStorage(), runId: 'panel-2of3' });
    expect(result.status).toBe('complete');
    expect(result.review).toEqual({
      kind: 'panel',
      verdict: 'pass',
      threshold: 2,
      passes: 2,
      reviewers: [
        { name: 'r1', outcome: 'pass', summary: 'r1 says pass' },
        { name: 'r2', outcome: 'fail', summary: 'r2 says fail' },
        { name: 'r3', outcome: 'pass', summary: 'r3 says pass' },
      ],
    });
    expect(seen).toHaveLength(3);
    expect(seen[0]!.task).toBe('Review me.');
    expect(seen[0]!.agents).toEqual([
      { name: 'a', role: 'a role', summary: 'a wrote a.txt' },
      { name: 'b', role: 'b role', summary: 'b wrote b.txt' },
    ]);
    expect(seen[0]!.diff).toContain('+alpha');
    expect(seen[0]!.diff).toContain('+beta');
  });

  it('fails with REVIEW_FAILED when fewer than the threshold pass (default: all), keeping the integration branch', async () => {
    const repo = await repository();
    const result = await team({
      task: 'Review me.',
      repository: repo.dir,
      agents: [writer('a', 'a.txt', 'alpha\n')],
      review: { kind: 'panel', reviewers: [reviewer('r1', 'pass'), reviewer('r2', 'fail'), reviewer('r3', 'pass')] },
    }).run({ storage: createMemoryStorage(), runId: 'panel-all' });
    expect(result.status).toBe('failed');
    expect(result.failure!.code).toBe('REVIEW_FAILED');
    expect(result.review).toMatchObject({ verdict: 'fail', threshold: 3, passes: 2 });
    expect(result.integrated).toBe(true);
    expect(await repo.git(['rev-parse', 'roundtable/panel-all/integration'])).toBe(result.integration!.commit);
  });

  it('counts a reviewer whose run throws as a failing review', async () => {
    const repo = await repository();
    const result = await team({
      task: 'Review me.',
      repository: repo.dir,
      agents: [writer('a', 'a.txt', 'alpha\n')],
      review: { kind: 'panel', threshold: 1, reviewers: [{ name: 'broken', run: () => Promise.reject(new Error('offline')) }] },
    }).run({ storage: createMemoryStorage(), runId: 'panel-throws' });
    expect(result.failure!.code).toBe('REVIEW_FAILED');
    expect(result.review).toMatchObject({ verdict: 'fail', reviewers: [{ name: 'broken', outcome: 'fail', summary: 'EFFECT_FAILED: offline' }] });
  });

  it('pauses for a callback review and resumes approved', async () => {
    const repo = await repository();
    const config: TeamConfig = {
      task: 'Ask a person.',
      repository: repo.dir,
      agents: [writer('a', 'a.txt', 'alpha\n')],
      review: { kind: 'callback', reason: 'Please review the integration.', request: { channel: 'email' } },
    };
    const storage = createMemoryStorage();
    const paused = await team(config).run({ storage, runId: 'cb-yes' });
    expect(paused.status).toBe('paused');
    expect(paused.pause).toEqual({ position: 'review', reason: 'Please review the integration.', request: { channel: 'email' } });
    expect(paused.integrated).toBe(true);
    expect(paused.review).toMatchObject({ kind: 'callback', verdict: null, approved: null });

    const head = await streamHead(storage, 'cb-yes');
    expect(await team(config).run({ storage, runId: 'cb-yes' })).toEqual(paused);
    expect(await streamHead(storage, 'cb-yes')).toBe(head);

    await expect(team(config).resume({ storage, runId: 'cb-yes', position: 'review', value: { approved: 'yes' } })).rejects.toSatisfy((error: unknown) =>
      isTeamError(error, 'INVALID_REVIEW_ANSWER'),
    );
    expect(await streamHead(storage, 'cb-yes')).toBe(head);

    const done = await team(config).resume({ storage, runId: 'cb-yes', position: 'review', value: { approved: true, note: 'Looks right.' } });
    expect(done.status).toBe('complete');
    expect(done.review).toEqual({
      kind: 'callback',
      verdict: 'pass',
      reason: 'Please review the integration.',
      request: { channel: 'email' },
      approved: true,
      note: 'Looks right.',
    });
    expect(await team(config).run({ storage, runId: 'cb-yes' })).toEqual(done);
  });

  it('pauses for a callback review and resumes rejected: REVIEW_FAILED, integration branch kept', async () => {
    const repo = await repository();
    const config: TeamConfig = { task: 'Ask.', repository: repo.dir, agents: [writer('a', 'a.txt', 'alpha\n')], review: { kind: 'callback', reason: 'Check it.' } };
    const storage = createMemoryStorage();
    const paused = await team(config).run({ storage, runId: 'cb-no' });
    expect(paused.pause).toEqual({ position: 'review', reason: 'Check it.', request: null });
    const done = await team(config).resume({ storage, runId: 'cb-no', position: 'review', value: { approved: false, note: 'Needs tests.' } });
    expect(done.status).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'REVIEW_FAILED', agents: [] });
    expect(done.failure!.message).toContain('Needs tests.');
    expect(done.review).toMatchObject({ verdict: 'fail', approved: false, note: 'Needs tests.' });
    expect(await repo.git(['rev-parse', 'roundtable/cb-no/integration'])).toBe(done.integration!.commit);
  });
});

describe('team(config): recovery', () => {
  it('resumes an agent whose attempt was cut off: its worktree is reset and reused, or rebuilt from its branch', async () => {
    const repo = await repository();
    const storage = createMemoryStorage();
    const controller = new AbortController();
    let runs = 0;
    const flaky: TeamAgent = {
      name: 'flaky',
      role: 'r',
      brief: 'b',
      run: async ({ workspace }) => {
        runs++;
        if (runs === 1) {
          await writeFile(join(workspace, 'partial.txt'), 'partial\n');
          controller.abort();
          return new Promise(() => undefined);
        }
        expect(existsSync(join(workspace, 'partial.txt'))).toBe(false);
        await writeFile(join(workspace, 'done.txt'), 'done\n');
        return { status: 'pass', summary: 'second try' };
      },
    };
    const config: TeamConfig = { task: 'Recover.', repository: repo.dir, agents: [flaky] };
    await expect(team(config).run({ storage, runId: 'cut', signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    const waiting = await team(config).run({ storage, runId: 'cut' });
    expect(waiting).toMatchObject({ status: 'waiting', waiting: ['agent/flaky'], agents: [{ outcome: null }] });
    const done = await team(config).resume({ storage, runId: 'cut', position: 'agent/flaky' });
    expect(done.status).toBe('complete');
    expect(runs).toBe(2);
    expect(await repo.git(['show', `${done.integration!.commit}:done.txt`])).toBe('done');

    // The same again, with the worktree deleted while the job was down.
    const storage2 = createMemoryStorage();
    const controller2 = new AbortController();
    let workspace = '';
    let runs2 = 0;
    const config2: TeamConfig = {
      task: 'Rebuild.',
      repository: repo.dir,
      agents: [
        {
          name: 'lost',
          role: 'r',
          brief: 'b',
          run: async (input) => {
            workspace = input.workspace;
            if (++runs2 === 1) {
              controller2.abort();
              return new Promise(() => undefined);
            }
            await writeFile(join(input.workspace, 'lost.txt'), 'found\n');
            return { status: 'pass', summary: 'rebuilt' };
          },
        },
      ],
    };
    await expect(team(config2).run({ storage: storage2, runId: 'lost', signal: controller2.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    await rm(workspace, { recursive: true, force: true });
    const rebuilt = await team(config2).resume({ storage: storage2, runId: 'lost', position: 'agent/lost' });
    expect(rebuilt.status).toBe('complete');
    expect(existsSync(join(workspace, 'lost.txt'))).toBe(true);
  });

  it('does not run an agent again when a crash came after its commit but before its outcome was recorded', async () => {
    const repo = await repository();
    const backing = createMemoryStorage();
    const dying = dyingStorage(backing);
    const calls: AgentRunInput[] = [];
    const config: TeamConfig = { task: 'Once.', repository: repo.dir, agents: [writer('once', 'once.txt', 'once\n', calls)] };
    await expect(team(config).run({ storage: dying, runId: 'once' })).rejects.toThrow('power cut');
    const committed = await repo.git(['rev-parse', 'roundtable/once/agent/once']);
    expect(calls).toHaveLength(1);

    const waiting = await team(config).run({ storage: backing, runId: 'once' });
    expect(waiting.waiting).toEqual(['agent/once']);
    const done = await team(config).resume({ storage: backing, runId: 'once', position: 'agent/once' });
    expect(calls).toHaveLength(1);
    expect(done.status).toBe('complete');
    expect(done.agents[0]).toMatchObject({ outcome: 'pass', commit: committed, summary: 'once wrote once.txt', data: { file: 'once.txt' } });
    const start = done.startCommit;
    expect(await repo.git(['rev-list', '--count', `${start}..roundtable/once/agent/once`])).toBe('1');
    const recorded = [];
    for await (const event of backing.read('once')) if (event.type === 'graph:node-completed') recorded.push(event.payload);
    expect(recorded[0]).toMatchObject({ nodeId: 'agent/once', result: { recovered: true } });
  });

  it('pauses an agent that is not retrySafe for a person to reconcile, then runs it again when resumed', async () => {
    const repo = await repository();
    const storage = createMemoryStorage();
    const controller = new AbortController();
    let runs = 0;
    const config: TeamConfig = {
      task: 'Careful.',
      repository: repo.dir,
      agents: [
        {
          name: 'careful',
          role: 'r',
          brief: 'b',
          retrySafe: false,
          run: async ({ workspace }) => {
            if (++runs === 1) {
              controller.abort();
              return new Promise(() => undefined);
            }
            await appendFile(join(workspace, 'c.txt'), 'c\n');
            return { status: 'pass', summary: 'ok' };
          },
        },
      ],
    };
    await expect(team(config).run({ storage, runId: 'careful', signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    const waiting = await team(config).run({ storage, runId: 'careful' });
    const paused = await team(config).resume({ storage, runId: 'careful', position: waiting.waiting[0]! });
    expect(paused).toMatchObject({ status: 'paused', pause: { position: 'agent/careful', request: { kind: 'reconcile-attempt' } } });
    expect(runs).toBe(1);
    const done = await team(config).resume({ storage, runId: 'careful', position: 'agent/careful' });
    expect(done.status).toBe('complete');
    expect(runs).toBe(2);
  });

  it('stops with GIT_FAILED, recording nothing for the agent, when git cannot make its branch; fixed, the job resumes', async () => {
    const repo = await repository();
    // A branch named `roundtable` makes every `roundtable/...` branch impossible.
    await repo.git(['branch', 'roundtable']);
    const storage = createMemoryStorage();
    const calls: AgentRunInput[] = [];
    const config: TeamConfig = { task: 'Blocked.', repository: repo.dir, agents: [writer('a', 'a.txt', 'a\n', calls)] };
    await expect(team(config).run({ storage, runId: 'blocked' })).rejects.toSatisfy((error: unknown) => isTeamError(error, 'GIT_FAILED'));
    expect(calls).toHaveLength(0);
    for await (const event of storage.read('blocked')) expect(['graph:node-completed', 'graph:node-failed']).not.toContain(event.type);
    await repo.git(['branch', '-D', 'roundtable']);
    const waiting = await team(config).run({ storage, runId: 'blocked' });
    const done = await team(config).resume({ storage, runId: 'blocked', position: waiting.waiting[0]! });
    expect(done.status).toBe('complete');
  });
});
