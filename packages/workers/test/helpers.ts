import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { inject } from 'vitest';
import { POSTGRES_URL_KEY, createTestDatabase } from '@roundtable/test-utils';
import type { TestDatabase } from '@roundtable/test-utils';
import type { RunStorage } from '@roundtable/storage';

declare module 'vitest' {
  export interface ProvidedContext {
    [POSTGRES_URL_KEY]: string;
  }
}

/** The test server's URL (from the global setup). */
export function serverUrl(): string {
  return inject(POSTGRES_URL_KEY);
}

/** A database of this test file's own. */
export function testDatabase(prefix = 'workers'): Promise<TestDatabase> {
  return createTestDatabase(serverUrl(), prefix);
}

/** A plain pg client for looking at (and damaging) the tables directly. */
export async function rawClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** FAULT_SCALE=full runs the long form of the race and kill tests; the default is a bounded one. */
export const FULL = process.env.FAULT_SCALE === 'full';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** Child-process fixtures import the built package; refuse to test a missing or stale build. */
export function assertFreshBuild(): void {
  const built = join(packageRoot, 'dist', 'index.js');
  if (!existsSync(built)) throw new Error('dist/index.js is missing: run `pnpm turbo run build --filter=@roundtable/workers` first.');
  const builtAt = statSync(built).mtimeMs;
  const sources = readdirSync(join(packageRoot, 'src')).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
  const stale = sources.filter((name) => statSync(join(packageRoot, 'src', name)).mtimeMs > builtAt);
  if (stale.length > 0) throw new Error(`dist is older than src (${stale.join(', ')}): build packages/workers first.`);
}

/** Forks a fixture from test/ with an IPC channel. */
export function forkFixture(name: string, args: string[]): ChildProcess {
  return fork(join(packageRoot, 'test', name), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Resolves with the next IPC message from `child` that `accept` takes. */
export function nextMessage<T>(child: ChildProcess, accept: (message: unknown) => message is T): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (!accept(message)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null, signal: string | null) => {
      child.off('message', onMessage);
      reject(new Error(`fixture exited (code ${code}, signal ${signal}) before sending the expected message`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

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
  const { RunRecordFolder, teamMessages } = await import('@roundtable/graph');
  const { workersTeamGraph } = await import('./team.mjs');
  const folder = new RunRecordFolder(workersTeamGraph(turns));
  for await (const event of storage.read(runId)) folder.apply(event);
  folder.endOfRead();
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
