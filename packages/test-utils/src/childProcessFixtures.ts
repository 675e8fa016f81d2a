import { fork, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** FAULT_SCALE=full runs the long form of the race and kill tests; the default is a bounded one. */
export const FULL = process.env.FAULT_SCALE === 'full';

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

/** `assertFreshBuild` and `forkFixture` bound to one package. */
export interface PackageFixtures {
  /** Refuses to go on with a missing or stale dist/ (fixtures import the build). */
  readonly assertFreshBuild: () => void;
  /** Forks `test/<fixture>` with an IPC channel. */
  readonly forkFixture: (fixture: string, args: string[]) => ChildProcess;
}

/** The fixture helpers of the package at `packageRoot` (its folder), named `name` under packages/. */
export function packageFixtures(packageRoot: string, name: string): PackageFixtures {
  return {
    assertFreshBuild: () => assertFreshBuild(packageRoot, name),
    forkFixture: (fixture, args) => forkFixture(packageRoot, fixture, args),
  };
}

/** Forks a fixture from a package's test/__fixtures__/ folder with an IPC channel. */
export function forkFixture(packageRoot: string, fixture: string, args: string[]): ChildProcess {
  return fork(join(packageRoot, 'test', '__fixtures__', fixture), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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

/** A type guard for IPC messages `{ type }` of the given type (for `nextMessage`). */
export const messageOfType =
  <T extends { type: string }>(type: T['type']) =>
  (message: unknown): message is T =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** Kills every child in the list that is still running (an `afterEach` body), and empties the list; a stopped (SIGSTOP) child is continued first, so the kill lands. */
export function killAll(children: ChildProcess[]): void {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
}

export interface KillableOptions {
  /** SIGKILL the process this many ms after it prints `ready` (its first line). */
  readonly killAfterReadyMs?: number;
  /** SIGKILL the process as soon as it prints this line. */
  readonly killOnLine?: string;
  /** Added to the environment. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface KillableExit {
  readonly stdout: string;
  /** True when the process ended by SIGKILL. */
  readonly killed: boolean;
}

/**
 * Runs `node <script> <args>`, and kills it with SIGKILL at the moment `options` names. Resolves
 * with its output once it has ended by exit code 0 or by the kill; rejects, with its stderr, on
 * any other end (an error inside a worker must fail the test, not pass for a kill).
 */
export function runKillable(script: string, args: readonly string[], options: KillableOptions = {}): Promise<KillableExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    let armed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (armed) return;
      if (options.killAfterReadyMs !== undefined && stdout.startsWith('ready\n')) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), options.killAfterReadyMs);
      } else if (options.killOnLine !== undefined && stdout.split('\n').includes(options.killOnLine)) {
        armed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ stdout, killed: true });
      else if (code === 0) resolve({ stdout, killed: false });
      else reject(new Error(`${basename(script)} exited (code ${code}, signal ${signal}): ${stderr}`));
    });
  });
}

/** The last line of a child's output, parsed as JSON (workers print their outcome last). */
export function lastJsonLine<T = unknown>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as T;
}
