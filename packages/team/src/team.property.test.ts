import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FULL } from '@roundtable/test-utils';
import type { RunStorage } from '@roundtable/storage';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { commitAll, commitMarks, crashSwitch, dyingStorage, recordedOutcomes, refsOf, resumeToEnd } from './__fixtures__/jobFixtures.js';
import { scratchRepository } from './__fixtures__/scratchRepository.js';
import type { ScratchRepository } from './__fixtures__/scratchRepository.js';
import { isTeamError, team } from './index.js';
import type { TeamAgent, TeamConfig, TeamJobResult } from './index.js';

// Generated sequences of jobs under one run id on one real repository, with the user moving the
// repository on, making, moving and deleting refs named like the job's, and agents that check
// out other branches, detach HEAD and commit; some jobs crash (an attempt cut off, or the record
// lost after a commit) and resume after the user acted. After every call:
// - an agent's outcome is only ever a commit whose one parent is this job's start commit and
//   whose trailers name this job, holding exactly the agent's work;
// - no ref the job did not make moves or goes; a job that would have to refuses with
//   REF_EXISTS and makes, moves and records nothing;
// - the agent's branch holds the agent's commit (the start commit when it changed nothing).

const RUN = 'prop';
const AGENTS = ['a', 'b'] as const;
type AgentName = (typeof AGENTS)[number];
type JobRefName = AgentName | 'integration';
const jobRef = (which: JobRefName) => (which === 'integration' ? `refs/heads/roundtable/${RUN}/integration` : `refs/heads/roundtable/${RUN}/agent/${which}`);
const JOB_REFS = (['a', 'b', 'integration'] as const).map(jobRef);
const START_FILES = ['README.md', 'src/greet.js'];

type AgentAction = 'write' | 'branch' | 'detach' | 'commit';
interface AgentScript {
  readonly actions: readonly AgentAction[];
  readonly fails: boolean;
}
type UserAction =
  | { readonly kind: 'move-on' }
  | { readonly kind: 'make-ref'; readonly which: JobRefName; readonly at: 'head' | 'own-commit' }
  | { readonly kind: 'delete-ref'; readonly which: JobRefName }
  | { readonly kind: 'clear' };
type Crash = { readonly kind: 'running'; readonly agent: AgentName } | { readonly kind: 'after-commit' };
interface JobStep {
  readonly kind: 'job';
  /** Run on the last finished job's record (a replay) instead of a fresh one. */
  readonly replay: boolean;
  readonly scripts: Readonly<Record<AgentName, AgentScript>>;
  readonly crash: { readonly at: Crash; readonly meanwhile: readonly UserAction[] } | null;
}
type Step = { readonly kind: 'user'; readonly action: UserAction } | JobStep;

interface World {
  readonly repo: ScratchRepository;
  last: { storage: RunStorage; result: TeamJobResult } | null;
  jobs: number;
  /** Numbers the user's commits and the agents' side branches. */
  serial: number;
}

const jobRefName = fc.constantFrom<JobRefName>('a', 'b', 'integration');
const userAction: fc.Arbitrary<UserAction> = fc.oneof(
  fc.constant({ kind: 'move-on' as const }),
  fc.record({ kind: fc.constant('make-ref' as const), which: jobRefName, at: fc.constantFrom('head' as const, 'own-commit' as const) }),
  fc.record({ kind: fc.constant('delete-ref' as const), which: jobRefName }),
  fc.constant({ kind: 'clear' as const }),
);
const script = (actions: fc.Arbitrary<AgentAction>): fc.Arbitrary<AgentScript> =>
  fc.record({ actions: fc.array(actions, { maxLength: 4 }), fails: fc.nat(5).map((roll) => roll === 0) });
const anyAction = fc.constantFrom<AgentAction>('write', 'write', 'branch', 'detach', 'commit');
const crashAt: fc.Arbitrary<Crash> = fc.oneof(
  fc.record({ kind: fc.constant('running' as const), agent: fc.constantFrom<AgentName>(...AGENTS) }),
  fc.constant({ kind: 'after-commit' as const }),
);
const jobStep = (options: { actions: fc.Arbitrary<AgentAction>; crash: fc.Arbitrary<JobStep['crash']> }): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.constant('job' as const),
    replay: fc.nat(4).map((roll) => roll === 0),
    scripts: fc.record({ a: script(options.actions), b: script(options.actions) }),
    crash: options.crash,
  });

/** A user's commit that no ref holds yet. */
async function ownCommit(repo: ScratchRepository): Promise<string> {
  return repo.git(['commit-tree', 'HEAD^{tree}', '-p', 'HEAD', '-m', 'My own work']);
}

/** Does what the user does, and keeps `kept` (the refs the job must leave alone) up to date. */
async function act(world: World, action: UserAction, kept: Record<string, string>): Promise<void> {
  const { repo } = world;
  const refs = await refsOf(repo);
  switch (action.kind) {
    case 'move-on':
      await writeFile(join(repo.dir, 'README.md'), `# Scratch\n\nMoved on ${++world.serial}.\n`);
      await repo.git(['commit', '--quiet', '--all', '-m', 'The repository moves on']);
      kept['refs/heads/main'] = await repo.git(['rev-parse', 'HEAD']);
      return;
    case 'make-ref': {
      const commit = action.at === 'head' ? await repo.git(['rev-parse', 'HEAD']) : await ownCommit(repo);
      // Setting a ref to what it holds changes nothing (git logs nothing): a ref of the job's stays the job's.
      if (refs[jobRef(action.which)] === commit) return;
      await repo.git(['update-ref', jobRef(action.which), commit]);
      kept[jobRef(action.which)] = commit;
      return;
    }
    case 'delete-ref':
      if (refs[jobRef(action.which)] !== undefined) await repo.git(['update-ref', '-d', jobRef(action.which)]);
      delete kept[jobRef(action.which)];
      return;
    case 'clear':
      for (const ref of JOB_REFS) {
        if (refs[ref] !== undefined) await repo.git(['update-ref', '-d', ref]);
        delete kept[ref];
      }
  }
}

async function expectKept(repo: ScratchRepository, kept: Record<string, string>): Promise<void> {
  const refs = await refsOf(repo);
  for (const [ref, commit] of Object.entries(kept)) expect(refs[ref], ref).toBe(commit);
}

/** The agent's side of one job: what each agent did on its last call, and every call. */
interface AgentLog {
  calls: Record<AgentName, number>;
  written: Record<AgentName, string[]>;
  /** The agent committed on its own branch on its first call (a runtime commit may replace that commit, or not). */
  committedOnBranch: Record<AgentName, boolean>;
  violations: string[];
}

function agents(world: World, step: JobStep, storage: () => RunStorage, log: AgentLog, crash: () => Promise<never>, job: number): TeamAgent[] {
  return AGENTS.map((name) => ({
    name,
    role: `${name} role`,
    brief: `${name} brief`,
    run: async ({ workspace }) => {
      const call = ++log.calls[name];
      if ((await recordedOutcomes(storage(), RUN)).includes(`agent/${name}`)) log.violations.push(`${name} ran after its outcome was recorded`);
      const { actions, fails } = step.scripts[name];
      const crashes = step.crash?.at.kind === 'running' && step.crash.at.agent === name && call === 1;
      let head: 'own' | 'elsewhere' = 'own';
      log.written[name] = [];
      for (const [index, action] of actions.entries()) {
        if (action === 'write') {
          const file = `${name}-${job}-${index}.txt`;
          await writeFile(join(workspace, file), `${name} ${job} ${call} ${index}\n`);
          log.written[name].push(file);
        } else if (action === 'branch') {
          await world.repo.git(['checkout', '--quiet', '-b', `side-${++world.serial}`], workspace);
          head = 'elsewhere';
        } else if (action === 'detach') {
          await world.repo.git(['checkout', '--quiet', '--detach'], workspace);
          head = 'elsewhere';
        } else {
          await commitAll(world.repo, workspace, `${name} commits`);
          if (call === 1 && head === 'own') log.committedOnBranch[name] = true;
        }
      }
      if (crashes) return crash();
      return { status: fails ? 'fail' : 'pass', summary: `${name}: ${actions.join(' ') || 'nothing'}` };
    },
  }));
}

const config = (repo: ScratchRepository, jobAgents: TeamAgent[]): TeamConfig => ({ task: 'Work.', repository: repo.dir, agents: jobAgents, concurrency: 1 });

async function expectRefused(call: () => Promise<TeamJobResult>, offending: readonly string[], repo: ScratchRepository, storage: RunStorage): Promise<void> {
  const before = { refs: await refsOf(repo), head: await storage.head(RUN) };
  const error = await call().then(
    (result) => result,
    (thrown: unknown) => thrown,
  );
  expect(isTeamError(error, 'REF_EXISTS'), error instanceof Error ? error.message : `no error: ${JSON.stringify(error)}`).toBe(true);
  expect(offending).toContain((error as { details: { ref: string } }).details.ref);
  expect(await refsOf(repo)).toEqual(before.refs);
  expect(await storage.head(RUN)).toBe(before.head);
}

/** The three invariants, on a job that ran to its end. */
async function expectOutcomes(world: World, result: TeamJobResult, start: string, log: AgentLog, touched: ReadonlySet<string>): Promise<void> {
  const { repo } = world;
  expect(result.startCommit).toBe(start);
  expect(log.violations).toEqual([]);
  const refs = await refsOf(repo);
  for (const [index, name] of AGENTS.entries()) {
    const agent = result.agents[index]!;
    expect(log.calls[name]).toBeGreaterThanOrEqual(1);
    const branchHolds = touched.has(jobRef(name)) ? undefined : refs[jobRef(name)];
    if (agent.outcome !== 'pass' || log.written[name].length === 0) {
      expect(agent.commit).toBeNull();
      if (agent.outcome === 'pass' && branchHolds !== undefined) expect(branchHolds).toBe(start);
      continue;
    }
    const commit = agent.commit!;
    expect(await commitMarks(repo, commit)).toEqual({ parents: start, run: RUN, job: result.jobId, agent: name });
    const files = (await repo.git(['ls-tree', '-r', '--name-only', commit])).split('\n');
    expect(files).toEqual([...START_FILES, ...log.written[name]].sort());
    if (branchHolds !== undefined) expect(branchHolds).toBe(commit);
  }
  if (result.agents.every((agent) => agent.outcome === 'pass')) {
    expect(result.integrated).toBe(true);
    expect(refs[jobRef('integration')]).toBe(result.integration!.commit);
  } else {
    expect(result.failure?.code).toBe('AGENT_FAILED');
  }
}

async function replay(world: World, step: JobStep): Promise<void> {
  const { storage, result } = world.last!;
  const log: AgentLog = { calls: { a: 0, b: 0 }, written: { a: [], b: [] }, committedOnBranch: { a: false, b: false }, violations: [] };
  const before = { refs: await refsOf(world.repo), head: await storage.head(RUN) };
  const again = await team(config(world.repo, agents(world, step, () => storage, log, () => Promise.reject(new Error('no crash')), world.jobs))).run({ storage, runId: RUN });
  expect(again).toEqual(result);
  expect(log.calls).toEqual({ a: 0, b: 0 });
  expect(await refsOf(world.repo)).toEqual(before.refs);
  expect(await storage.head(RUN)).toBe(before.head);
}

async function runJob(world: World, step: JobStep): Promise<void> {
  if (step.replay && world.last !== null) return replay(world, step);
  const { repo } = world;
  const job = ++world.jobs;
  const backing = createMemoryStorage();
  const crashing = step.crash?.at.kind === 'after-commit' ? dyingStorage(backing) : backing;
  const log: AgentLog = { calls: { a: 0, b: 0 }, written: { a: [], b: [] }, committedOnBranch: { a: false, b: false }, violations: [] };
  const { signal, crash } = crashSwitch();
  const jobConfig = config(repo, agents(world, step, () => backing, log, crash, job));
  // Every ref there now is not this job's: none of them may move, and one named like its refs stops it.
  const kept = await refsOf(repo);
  const start = kept['refs/heads/main']!;
  world.last = null;
  const inTheWay = JOB_REFS.filter((ref) => kept[ref] !== undefined);
  if (inTheWay.length > 0) {
    await expectRefused(() => team(jobConfig).run({ storage: crashing, runId: RUN, signal }), inTheWay, repo, backing);
    expect(log.calls).toEqual({ a: 0, b: 0 });
    return;
  }
  const touched = new Set<string>();
  if (step.crash !== null) {
    const stopped = await team(jobConfig)
      .run({ storage: crashing, runId: RUN, signal })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(stopped, 'the crash stopped the job').not.toBeNull();
    await expectKept(repo, kept);
    for (const action of step.crash.meanwhile) {
      await act(world, action, kept);
      const refs = action.kind === 'clear' ? JOB_REFS : action.kind === 'move-on' ? [] : [jobRef(action.which)];
      for (const ref of refs) touched.add(ref);
    }
    const crashed = step.crash.at.kind === 'running' ? step.crash.at.agent : 'a';
    // What the rest of the job makes: the crashed agent's branch, every later agent's and the integration's.
    const needed = [...AGENTS.slice(AGENTS.indexOf(crashed)).map(jobRef), jobRef('integration')];
    // An agent's own commit on its branch stays there unless the runtime's commit replaced it (a pass before the record was lost).
    const replaced = step.crash.at.kind === 'after-commit' && !step.scripts.a.fails;
    const movedByAgent = log.committedOnBranch[crashed] && !replaced && !touched.has(jobRef(crashed)) ? [jobRef(crashed)] : [];
    const offending = [...needed.filter((ref) => kept[ref] !== undefined), ...movedByAgent];
    if (offending.length > 0) {
      const waiting = await team(jobConfig).run({ storage: backing, runId: RUN });
      await expectRefused(() => team(jobConfig).resume({ storage: backing, runId: RUN, position: waiting.waiting[0]! }), offending, repo, backing);
      await expectKept(repo, kept);
      return;
    }
  }
  const callsBefore = { ...log.calls };
  const result = await resumeToEnd(team(jobConfig), backing, RUN);
  await expectKept(repo, kept);
  await expectOutcomes(world, result, start, log, touched);
  if (step.crash?.at.kind === 'after-commit' && !touched.has(jobRef('a')) && log.written.a.length > 0 && !step.scripts.a.fails) {
    // The commit was made before the record was lost: its outcome is read back, the agent does not run again.
    expect(log.calls.a).toBe(callsBefore.a);
  }
  world.last = { storage: backing, result };
}

async function runScenario(steps: readonly Step[]): Promise<void> {
  const world: World = { repo: await scratchRepository(), last: null, jobs: 0, serial: 0 };
  try {
    for (const step of steps) {
      if (step.kind === 'job') await runJob(world, step);
      else await act(world, step.action, {});
    }
  } finally {
    await world.repo.remove();
  }
}

const runs = (bounded: number) => ({ numRuns: FULL ? bounded * 5 : bounded });

describe('team(config) under generated histories of one run id (properties)', () => {
  it("P1 job identity: a job that reuses a run id after the repository moved on runs its agents; its outcomes are commits on its own start commit naming it", async () => {
    const step = fc.oneof(
      { weight: 3, arbitrary: jobStep({ actions: fc.constant<AgentAction>('write'), crash: fc.constant(null) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('user' as const), action: fc.constantFrom<UserAction>({ kind: 'move-on' }, { kind: 'clear' }) }) },
    );
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 5 }), runScenario), runs(4));
  });

  it('P2 refs: no ref the job did not make is moved or deleted; one in its way is REF_EXISTS, before or after a crash, with nothing made or recorded', async () => {
    const step = fc.oneof(
      { weight: 3, arbitrary: jobStep({ actions: anyAction, crash: fc.option(fc.record({ at: crashAt, meanwhile: fc.array(userAction, { maxLength: 2 }) }), { freq: 2 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('user' as const), action: userAction }) },
    );
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), runScenario), runs(8));
  });

  it("P3 HEAD: whatever an agent does with its worktree's HEAD, its branch holds its work as one commit on the start commit, also after a crash", async () => {
    const crash = fc.option(fc.record({ at: crashAt, meanwhile: fc.constant([]) }), { freq: 2 });
    await fc.assert(fc.asyncProperty(jobStep({ actions: anyAction, crash }), (step) => runScenario([step])), runs(6));
  });
});
