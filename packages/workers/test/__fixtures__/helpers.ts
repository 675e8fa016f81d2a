import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { packageFixtures } from '@roundtable/test-utils';
import type { TestDatabase } from '@roundtable/test-utils';
import { childProcessDatabase as sharedChildProcessDatabase, postgresTestDatabase } from '@roundtable/test-utils/harness';
import type { RunStorage } from '@roundtable/storage';

export { FULL, exited, nextMessage, rejection } from '@roundtable/test-utils';

/** What a worker process sends as a member starts an attempt (see workerProcess.mjs). */
export interface AttemptMessage {
  readonly type: 'attempt';
  readonly position: string;
  readonly workerId: string;
  /** The worker's count of its attempts: what `letAttemptGo` names. */
  readonly attempt: number;
}

export const isAttempt = (message: unknown): message is AttemptMessage => typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'attempt';

/** Lets a gated worker's attempt go on (see workerProcess.mjs); a worker already gone is ignored. */
export function letAttemptGo(worker: ChildProcess, attempt: number): void {
  if (worker.connected) worker.send({ type: 'go', attempt }, () => undefined);
}

/** A database of this test file's own. */
export function testDatabase(prefix = 'workers'): Promise<TestDatabase> {
  return postgresTestDatabase(prefix);
}

/** Child-process fixtures import the built package: `assertFreshBuild` refuses a missing or stale build. */
export const { assertFreshBuild, forkFixture } = packageFixtures(fileURLToPath(new URL('../..', import.meta.url)), 'workers');

/** The hooks of a child-process test file: the build checked, a database for the file, every child still running (or stopped) killed after each test. */
export const childProcessDatabase = (prefix: string) => sharedChildProcessDatabase(assertFreshBuild, prefix);

/** The result and saved messages of the test team run in one process on memory storage: what every worker-run must equal. */
export async function referenceRun(turns: number): Promise<{ result: unknown; messages: unknown[] }> {
  const { createMemoryStorage } = await import('@roundtable/storage-memory');
  const { createGraphExecutor } = await import('@roundtable/scheduler');
  const { workersTeamGraph, workersTeamNodes } = await import('./team.mjs');
  const storage = createMemoryStorage();
  const graph = workersTeamGraph(turns);
  const result = await (await createGraphExecutor({ runId: 'reference', graph, storage, nodes: workersTeamNodes({ turns, waitMs: 0 }) })).run();
  return { result, messages: await savedMessages(storage, 'reference', turns) };
}

/** The saved messages of a run, in saved order, with run-specific nothing (ids are positions). */
export async function savedMessages(storage: RunStorage, runId: string, turns: number): Promise<unknown[]> {
  const { foldStream, teamMessages } = await import('@roundtable/graph');
  const { workersTeamGraph } = await import('./team.mjs');
  const folder = await foldStream(storage, runId, { graph: workersTeamGraph(turns) });
  // Attempts of one batch finish in any order: compare messages as a set, by id.
  return [...teamMessages(folder.state)].sort((a, b) => a.id.localeCompare(b.id));
}

/** Per position of a run: how many attempt starts and outcomes the record holds. */
export async function attemptCounts(storage: RunStorage, runId: string): Promise<Map<string, { starts: number; outcomes: number; completions: number; last: string }>> {
  const counts = new Map<string, { starts: number; outcomes: number; completions: number; last: string }>();
  for await (const event of storage.read(runId)) {
    const position = (event.payload as { position?: unknown }).position;
    if (typeof position !== 'string') continue;
    const entry = counts.get(position) ?? { starts: 0, outcomes: 0, completions: 0, last: '' };
    if (event.type === 'graph:node-attempt-started') entry.starts++;
    if (event.type === 'graph:node-completed') entry.completions++;
    if (['graph:node-completed', 'graph:node-failed', 'graph:node-paused'].includes(event.type)) entry.outcomes++;
    entry.last = event.type;
    counts.set(position, entry);
  }
  return counts;
}
