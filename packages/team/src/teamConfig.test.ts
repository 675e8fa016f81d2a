import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { scratchRepository } from './__fixtures__/scratchRepository.js';
import type { ScratchRepository } from './__fixtures__/scratchRepository.js';
import { isTeamError, team } from './index.js';
import type { TeamConfig } from './index.js';

const run = () => ({ status: 'pass' as const, summary: 'ok' });
const agent = (name: string) => ({ name, role: 'role', brief: 'brief', run });
const base = (): Record<string, unknown> => ({ task: 'Task.', repository: '/tmp', agents: [agent('a')] });

function expectConfigError(make: () => unknown, path: string): void {
  let thrown: unknown;
  try {
    make();
  } catch (error) {
    thrown = error;
  }
  expect(isTeamError(thrown, 'TEAM_CONFIG'), `expected TEAM_CONFIG, got ${String(thrown)}`).toBe(true);
  expect((thrown as { details: { path: string } }).details.path).toBe(path);
}

const cases: [string, (config: Record<string, unknown>) => unknown, string][] = [
  ['config is not an object', () => null, ''],
  ['unknown field', (c) => ({ ...c, agent: [] }), '/agent'],
  ['task missing', (c) => ({ ...c, task: undefined }), '/task'],
  ['task empty', (c) => ({ ...c, task: '' }), '/task'],
  ['task blank', (c) => ({ ...c, task: '   ' }), '/task'],
  ['task not a string', (c) => ({ ...c, task: 42 }), '/task'],
  ['repository missing', (c) => ({ ...c, repository: undefined }), '/repository'],
  ['no agents', (c) => ({ ...c, agents: [] }), '/agents'],
  ['agents not an array', (c) => ({ ...c, agents: agent('a') }), '/agents'],
  ['agent not an object', (c) => ({ ...c, agents: ['a'] }), '/agents/0'],
  ['agent unknown field', (c) => ({ ...c, agents: [{ ...agent('a'), model: 'x' }] }), '/agents/0/model'],
  ['name empty', (c) => ({ ...c, agents: [agent('')] }), '/agents/0/name'],
  ['name not a string', (c) => ({ ...c, agents: [{ ...agent('a'), name: 7 }] }), '/agents/0/name'],
  ['name with a slash', (c) => ({ ...c, agents: [agent('a/b')] }), '/agents/0/name'],
  ['name with a space', (c) => ({ ...c, agents: [agent('a b')] }), '/agents/0/name'],
  ['name starting with a dot', (c) => ({ ...c, agents: [agent('.a')] }), '/agents/0/name'],
  ['name starting with a dash', (c) => ({ ...c, agents: [agent('-a')] }), '/agents/0/name'],
  ['name with ..', (c) => ({ ...c, agents: [agent('a..b')] }), '/agents/0/name'],
  ['name ending in .lock', (c) => ({ ...c, agents: [agent('a.lock')] }), '/agents/0/name'],
  ['name ending in a dot', (c) => ({ ...c, agents: [agent('a.')] }), '/agents/0/name'],
  ['name of 65 characters', (c) => ({ ...c, agents: [agent('a'.repeat(65))] }), '/agents/0/name'],
  ['duplicate names', (c) => ({ ...c, agents: [agent('a'), agent('b'), agent('a')] }), '/agents/2/name'],
  ['role empty', (c) => ({ ...c, agents: [{ ...agent('a'), role: '' }] }), '/agents/0/role'],
  ['role missing', (c) => ({ ...c, agents: [{ ...agent('a'), role: undefined }] }), '/agents/0/role'],
  ['brief empty', (c) => ({ ...c, agents: [{ ...agent('a'), brief: '' }] }), '/agents/0/brief'],
  ['run missing', (c) => ({ ...c, agents: [{ ...agent('a'), run: undefined }] }), '/agents/0/run'],
  ['run not a function', (c) => ({ ...c, agents: [{ ...agent('a'), run: 'go' }] }), '/agents/0/run'],
  ['retrySafe not a boolean', (c) => ({ ...c, agents: [{ ...agent('a'), retrySafe: 'yes' }] }), '/agents/0/retrySafe'],
  ['integrate not a boolean', (c) => ({ ...c, integrate: 'yes' }), '/integrate'],
  ['concurrency 0', (c) => ({ ...c, concurrency: 0 }), '/concurrency'],
  ['concurrency 1.5', (c) => ({ ...c, concurrency: 1.5 }), '/concurrency'],
  ['workspaceRoot empty', (c) => ({ ...c, workspaceRoot: '' }), '/workspaceRoot'],
  ['review not an object', (c) => ({ ...c, review: 'panel' }), '/review'],
  ['review of an unknown kind', (c) => ({ ...c, review: { kind: 'vote' } }), '/review/kind'],
  ['panel without reviewers', (c) => ({ ...c, review: { kind: 'panel', reviewers: [] } }), '/review/reviewers'],
  ['reviewer without run', (c) => ({ ...c, review: { kind: 'panel', reviewers: [{ name: 'r' }] } }), '/review/reviewers/0/run'],
  ['reviewer without name', (c) => ({ ...c, review: { kind: 'panel', reviewers: [{ run }] } }), '/review/reviewers/0/name'],
  ['duplicate reviewers', (c) => ({ ...c, review: { kind: 'panel', reviewers: [{ name: 'r', run }, { name: 'r', run }] } }), '/review/reviewers/1/name'],
  ['threshold 0', (c) => ({ ...c, review: { kind: 'panel', threshold: 0, reviewers: [{ name: 'r', run }] } }), '/review/threshold'],
  ['threshold above the reviewers', (c) => ({ ...c, review: { kind: 'panel', threshold: 2, reviewers: [{ name: 'r', run }] } }), '/review/threshold'],
  ['threshold 1.5', (c) => ({ ...c, review: { kind: 'panel', threshold: 1.5, reviewers: [{ name: 'r', run }, { name: 's', run }] } }), '/review/threshold'],
  ['panel unknown field', (c) => ({ ...c, review: { kind: 'panel', reviewers: [{ name: 'r', run }], quorum: 1 } }), '/review/quorum'],
  ['callback without reason', (c) => ({ ...c, review: { kind: 'callback' } }), '/review/reason'],
  ['callback with a request that is not JSON', (c) => ({ ...c, review: { kind: 'callback', reason: 'r', request: { at: new Date() } } }), '/review/request'],
  ['review without integration', (c) => ({ ...c, integrate: false, review: { kind: 'callback', reason: 'r' } }), '/review'],
];

describe('team(config) refuses a bad config with TEAM_CONFIG before anything exists', () => {
  it.each(cases)('%s', (_label, change, path) => {
    expectConfigError(() => team(change(base()) as TeamConfig), path);
  });

  it('accepts the smallest config and every optional field', () => {
    expect(() => team(base() as unknown as TeamConfig)).not.toThrow();
    expect(() =>
      team({
        ...(base() as unknown as TeamConfig),
        integrate: true,
        concurrency: 3,
        workspaceRoot: '/tmp/w',
        review: { kind: 'panel', threshold: 1, reviewers: [{ name: 'r', run, retrySafe: false }] },
      }),
    ).not.toThrow();
  });
});

describe('run refuses a bad run id or repository with TEAM_CONFIG, creating nothing', () => {
  let repo: ScratchRepository;
  let empty: ScratchRepository;
  let plain: string;
  beforeAll(async () => {
    repo = await scratchRepository();
    empty = await scratchRepository({ 'a.txt': 'a\n' }, { commit: false });
    plain = await mkdtemp(join(tmpdir(), 'team-plain-'));
  });
  afterAll(async () => {
    await repo.remove();
    await empty.remove();
    await rm(plain, { recursive: true, force: true });
  });

  it.each([
    ['with ..', 'a..b'],
    ['ending in .lock', 'job.lock'],
    ['with a slash', 'a/b'],
    ['empty', ''],
    ['starting with a dot', '.job'],
  ])('a run id %s', async (_label, runId) => {
    const storage = createMemoryStorage();
    const job = team({ task: 'T.', repository: repo.dir, agents: [agent('a')] });
    await expect(job.run({ storage, runId })).rejects.toSatisfy((error: unknown) => isTeamError(error, 'TEAM_CONFIG'));
    await expect(job.resume({ storage, runId, position: 'review', value: { approved: true } })).rejects.toSatisfy((error: unknown) => isTeamError(error, 'TEAM_CONFIG'));
    const streams = [];
    for await (const stream of storage.streams()) streams.push(stream);
    expect(streams).toEqual([]);
  });

  it.each([
    ['a directory that is not a git work tree', () => plain],
    ['a repository without a commit', () => empty.dir],
    ['a path that does not exist', () => join(plain, 'missing')],
    ['a file', () => join(empty.dir, 'a.txt')],
  ])('a repository that is %s', async (_label, path) => {
    const storage = createMemoryStorage();
    const job = team({ task: 'T.', repository: path(), agents: [agent('a')] });
    await expect(job.run({ storage, runId: 'job' })).rejects.toSatisfy((error: unknown) => isTeamError(error, 'TEAM_CONFIG'));
    expect(await storage.head('job')).toBe(0);
    expect(existsSync(join(plain, '.git'))).toBe(false);
  });

  it('a resumed job whose repository no longer holds its start commit', async () => {
    const storage = createMemoryStorage();
    const other = await scratchRepository({ 'other.txt': 'other\n' });
    try {
      const controller = new AbortController();
      const job = (repository: string) =>
        team({
          task: 'T.',
          repository,
          agents: [{ name: 'a', role: 'r', brief: 'b', run: () => (controller.abort(), new Promise<never>(() => undefined)) }],
        });
      await expect(job(repo.dir).run({ storage, runId: 'moved', signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
      const head = await storage.head('moved');
      await expect(job(other.dir).resume({ storage, runId: 'moved', position: 'agent/a' })).rejects.toSatisfy((error: unknown) => isTeamError(error, 'TEAM_CONFIG'));
      expect(await storage.head('moved')).toBe(head);
    } finally {
      await other.remove();
    }
  });

  it('a run that holds another job is STORED_GRAPH_MISMATCH', async () => {
    const storage = createMemoryStorage();
    await team({ task: 'First.', repository: repo.dir, agents: [agent('a')], integrate: false }).run({ storage, runId: 'taken' });
    await expect(team({ task: 'Second.', repository: repo.dir, agents: [agent('a')], integrate: false }).run({ storage, runId: 'taken' })).rejects.toMatchObject({
      code: 'STORED_GRAPH_MISMATCH',
    });
  });
});

describe('workspaceRoot', () => {
  it('refuses a root inside the working tree (TEAM_CONFIG, nothing written) and accepts one outside it', async () => {
    const repo = await scratchRepository();
    const outside = await mkdtemp(join(tmpdir(), 'team-root-'));
    try {
      const storage = createMemoryStorage();
      const inside = team({ task: 'T.', repository: repo.dir, agents: [agent('a')], workspaceRoot: join(repo.dir, 'worktrees') });
      await expect(inside.run({ storage, runId: 'inside' })).rejects.toSatisfy((error: unknown) => isTeamError(error, 'TEAM_CONFIG'));
      expect(await storage.head('inside')).toBe(0);
      const result = await team({ task: 'T.', repository: repo.dir, agents: [agent('a')], workspaceRoot: outside }).run({ storage, runId: 'outside' });
      expect(result.status).toBe('complete');
      expect(existsSync(join(outside, 'outside', 'agent', 'a', '.git'))).toBe(true);
      expect(existsSync(join(outside, 'outside', 'integration', '.git'))).toBe(true);
      expect(await repo.git(['status', '--porcelain'])).toBe('');
    } finally {
      await repo.remove();
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('a run that holds a team conversation', () => {
  it('is STORED_GRAPH_MISMATCH for team(config)', async () => {
    const repo = await scratchRepository();
    try {
      const storage = createMemoryStorage();
      const graph = compileGraph(teamGraphType, {
        id: 'talk',
        definitionVersion: 1,
        data: { task: 'Talk.', globalConcurrency: 1, maxTurnsPerMember: 1 },
        nodes: [{ id: 'a', data: { role: 'r', brief: 'b' } }],
        edges: [],
      });
      await (await createGraphExecutor({ runId: 'talk', graph, storage, nodes: { a: () => ({ summary: 'hi' }) } })).run();
      await expect(team({ task: 'T.', repository: repo.dir, agents: [agent('a')] }).run({ storage, runId: 'talk' })).rejects.toMatchObject({ code: 'STORED_GRAPH_MISMATCH' });
      // projectTeamRooms refuses a team job the same way: apps/flows (a flow across team and rooms).
    } finally {
      await repo.remove();
    }
  });
});
