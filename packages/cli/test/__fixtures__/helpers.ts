import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/index.js';

export const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
/** A line of a JavaScript stack trace: never printed. */
export const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;
export const WRITE_RECORD = fileURLToPath(new URL('./writeRecord.mjs', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`Build @roundtable/cli first: ${BIN} is missing.`);
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built `roundtable` binary as a child process, in `cwd` (by default this process's).
 * `timeoutMs` is a hang guard for a command that could run until stopped (a follow, the
 * viewer): after it, SIGTERM ends it.
 */
export function roundtable(args: readonly string[], env: Record<string, string> = {}, { cwd, timeoutMs = 0 }: { cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ROUNDTABLE_STORE: '', ...env }, maxBuffer: 64 * 1024 * 1024, cwd, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs `roundtable …` in this process, as the binary runs it (`runCli`): for the many short
 * commands of a test, where a process start each costs seconds on a busy machine.
 */
export async function roundtableInProcess(argv: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ROUNDTABLE_STORE: '', ...env },
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

/** Writes a record with the real executor in a child process (see the fixture for scenarios). */
export function writeRecord(adapter: 'fs' | 'sqlite' | 'postgres', path: string, runId: string, scenario: string, namespace = 'default'): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WRITE_RECORD, adapter, path, runId, scenario, namespace], (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`writeRecord ${scenario} failed: ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Starts a record writer whose reviewer never finishes, waits until its attempt started, and SIGKILLs it. */
export async function writeKilledRecord(adapter: 'fs' | 'sqlite', path: string, runId: string): Promise<void> {
  const child = spawn(process.execPath, [WRITE_RECORD, adapter, path, runId, 'waiting'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await waitForOutput(child, (text) => text.includes('in-attempt'));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Starts a record writer whose reviewer runs until its signal aborts (a cancel from another
 * process), and waits until that attempt started. Resolves with what the writer printed at its
 * end (the run's result kind) once it exits.
 */
export function startCancellableRecord(adapter: 'fs' | 'sqlite' | 'postgres', path: string, runId: string): Promise<{ readonly ended: Promise<{ code: number | null; stdout: string }> }> {
  return startRecordWriter(adapter, path, runId, 'cancellable', 'in-attempt');
}

/**
 * Starts a record writer whose `executor.serve()` holds the paused run (scenario `serve`), and
 * waits until it paused. Resolves with what it printed at its end once it exits.
 */
export function startServedRecord(adapter: 'fs' | 'sqlite' | 'postgres', path: string, runId: string): Promise<{ readonly ended: Promise<{ code: number | null; stdout: string }> }> {
  return startRecordWriter(adapter, path, runId, 'serve', 'serving');
}

async function startRecordWriter(adapter: 'fs' | 'sqlite' | 'postgres', path: string, runId: string, scenario: string, ready: string): Promise<{ readonly ended: Promise<{ code: number | null; stdout: string }> }> {
  const child = spawn(process.execPath, [WRITE_RECORD, adapter, path, runId, scenario], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const ended = new Promise<{ code: number | null; stdout: string }>((resolve) => child.once('close', (code) => resolve({ code, stdout })));
  await waitForOutput(child, (text) => text.includes(ready));
  return { ended };
}

/** A long-running `roundtable` child (a follow), with what it printed so far. */
export interface RunningCli {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout satisfies `check`; rejects after a generous wait. */
  waitFor(check: (stdout: string) => boolean, what: string): Promise<void>;
  /** Sends SIGINT (`copies` times back to back, as one Ctrl-C reaches a child of pnpm) and resolves with the exit code. */
  interrupt(copies?: number): Promise<number | null>;
}

export function startRoundtable(args: readonly string[]): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ROUNDTABLE_STORE: '' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(check, what) {
      // A generous wait, not a timing assertion: only a follow that never delivers fails it.
      for (let i = 0; i < 300; i++) {
        if (check(out)) return;
        if (child.exitCode !== null) throw new Error(`roundtable exited (${child.exitCode}) before ${what}: ${err}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`roundtable did not print ${what} within 15 s. stdout: ${out} stderr: ${err}`);
    },
    async interrupt(copies = 1) {
      for (let i = 0; i < copies; i++) child.kill('SIGINT');
      return exit;
    },
  };
}

function waitForOutput(child: ChildProcess, check: (text: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (check(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the record writer exited (${code}) early: ${text}`)));
  });
}
