import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** FAULT_SCALE=full runs the long form of the race and kill tests; the default is a bounded one. */
export const FULL = process.env.FAULT_SCALE === 'full';

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/**
 * Child-process fixtures import a package's build: refuse to test a missing or stale one.
 * `packageRoot` is the package folder, `name` its folder name under packages/.
 */
export function assertFreshBuild(packageRoot: string, name: string): void {
  const built = join(packageRoot, 'dist', 'index.js');
  if (!existsSync(built)) throw new Error(`dist/index.js is missing: run \`pnpm turbo run build --filter=@roundtable/${name}\` first.`);
  const builtAt = statSync(built).mtimeMs;
  const sources = readdirSync(join(packageRoot, 'src')).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
  const stale = sources.filter((file) => statSync(join(packageRoot, 'src', file)).mtimeMs > builtAt);
  if (stale.length > 0) throw new Error(`dist is older than src (${stale.join(', ')}): build packages/${name} first.`);
}

/** Forks a fixture from a package's test/ folder with an IPC channel. */
export function forkFixture(packageRoot: string, fixture: string, args: string[]): ChildProcess {
  return fork(join(packageRoot, 'test', fixture), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
