// Helpers of the tests of a job's refs and commits: real repositories, what git holds, crashes.
import { afterEach } from 'vitest';
import { delegateStorage } from '@roundtable/storage/adapter';
import type { RunStorage } from '@roundtable/storage';
import type { TeamJob, TeamJobResult } from '../index.js';
import { scratchRepository } from './scratchRepository.js';
import type { ScratchRepository } from './scratchRepository.js';
import { GraphEventTypes } from '@roundtable/graph';

/** A `repository()` for one test file: each scratch repository is removed after its test. */
export function scratchRepositories(): (files?: Record<string, string>) => Promise<ScratchRepository> {
  const made: ScratchRepository[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((repository) => repository.remove()));
  });
  return async (files) => {
    const repository = await scratchRepository(files);
    made.push(repository);
    return repository;
  };
}

/** Every ref of the repository and the object it holds (`git for-each-ref`). */
export async function refsOf(repo: ScratchRepository): Promise<Record<string, string>> {
  const text = await repo.git(['for-each-ref', '--format=%(refname) %(objectname)']);
  return Object.fromEntries(text.split('\n').filter((line) => line !== '').map((line) => line.split(' ') as [string, string]));
}

/** A commit's parents and its `Roundtable-*` trailers: what makes it one job's commit of one agent. */
export async function commitMarks(repo: ScratchRepository, commit: string): Promise<{ parents: string; run: string; job: string; agent: string }> {
  const trailer = (key: string) => `%(trailers:key=Roundtable-${key},valueonly,separator=)`;
  const [parents = '', run = '', job = '', agent = ''] = (await repo.git(['show', '-s', `--format=%P%n${trailer('Run')}%n${trailer('Job')}%n${trailer('Agent')}`, commit])).split('\n');
  return { parents, run, job, agent };
}

/**
 * A crash from inside an agent: `crash()` stops the job's run and returns a promise that never
 * settles, so the attempt is left without an outcome, as when its process dies.
 */
export function crashSwitch(): { signal: AbortSignal; crash: () => Promise<never> } {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    crash: () => {
      controller.abort();
      return new Promise<never>(() => undefined);
    },
  };
}

/** A storage that dies (refuses every append) once it is asked to record an outcome: a crash after the work, before its record. */
export function dyingStorage(backing: RunStorage): RunStorage {
  let dead = false;
  return delegateStorage(backing, {
    append: (id, expected, events) => {
      if (dead || events.some((event) => event.type === GraphEventTypes.NODE_COMPLETED)) {
        dead = true;
        return Promise.reject(new Error('power cut'));
      }
      return backing.append(id, expected, events);
    },
  });
}

/** What an agent does to commit by itself: everything in its worktree, on whatever its HEAD is. */
export async function commitAll(repo: ScratchRepository, workspace: string, message: string): Promise<void> {
  await repo.git(['add', '--all'], workspace);
  await repo.git(['commit', '--quiet', '--allow-empty', '-m', message], workspace);
}

/** Continues a job from its record to its end, resuming every attempt a crash left unfinished. */
export async function resumeToEnd(job: TeamJob, storage: RunStorage, runId: string): Promise<TeamJobResult> {
  let result = await job.run({ storage, runId });
  while (result.status === 'waiting') result = await job.resume({ storage, runId, position: result.waiting[0]! });
  return result;
}

/** The agent outcomes the record holds, by node id (completions and failures). */
export async function recordedOutcomes(storage: RunStorage, runId: string): Promise<string[]> {
  const outcomes: string[] = [];
  for await (const event of storage.read(runId)) {
    if (event.type === GraphEventTypes.NODE_COMPLETED || event.type === GraphEventTypes.NODE_FAILED) outcomes.push((event.payload as { nodeId: string }).nodeId);
  }
  return outcomes;
}
