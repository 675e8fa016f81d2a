import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ReadmeBlock } from './readmeBlocks.js';

/** One command of a README's shell block, as the docs test runs it. */
export interface ReadmeCommand {
  readonly where: string;
  readonly command: string;
  /** `stop`: long-running; stopped with SIGINT (as Ctrl-C) once it printed a line. */
  readonly mode: 'run' | 'stop';
  readonly skip: string | null;
}

export interface CommandOutcome {
  readonly where: string;
  readonly command: string;
  readonly code: number | null;
  readonly signal: string | null;
  readonly output: string;
  readonly problem: string | null;
}

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);

export function isShellBlock(block: ReadmeBlock): boolean {
  return SHELL_LANGS.has(block.lang) && block.markers.fragment === null;
}

/**
 * The commands of a shell block: the `$ `-prompted lines when it shows a session (the other
 * lines are output), else every line that is not a comment; a `\` at the end joins lines.
 */
export function blockCommands(block: ReadmeBlock, replacements: ReadonlyMap<string, string>): ReadmeCommand[] {
  const lines = block.code.split('\n');
  const prompted = lines.some((line) => line.startsWith('$ '));
  const commands: ReadmeCommand[] = [];
  for (let index = 0; index < lines.length; index++) {
    let text = lines[index]!;
    const line = block.line + index;
    if (prompted) {
      if (!text.startsWith('$ ')) continue;
      text = text.slice(2);
    }
    while (text.endsWith('\\') && index + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++index]!.trim()}`;
    if (text.trim() === '' || text.trimStart().startsWith('#')) continue;
    let command = text;
    for (const [from, to] of replacements) command = command.split(from).join(to);
    const skip = block.markers.skip.find((rule) => text.includes(rule.text))?.reason ?? null;
    const mode = block.markers.stop.some((needle) => text.includes(needle)) ? 'stop' : 'run';
    commands.push({ where: `${block.readme}:${line}`, command, mode, skip });
  }
  return commands;
}

/** A user's shell environment: nothing of the test runner's, turbo's or pnpm's own run. */
export function userEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|turbo_|vitest|INIT_CWD$|NODE_ENV$|NODE_OPTIONS$|TEST$|FORCE_COLOR$)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, NO_COLOR: '1', TURBO_TELEMETRY_DISABLED: '1', ...extra };
}

// Output no README command should print: a stack trace, pnpm's script failure or update notice,
// turbo's run banner.
const NOISE: readonly [RegExp, string][] = [
  [/^\s+at .+:\d+:\d+\)?$/m, 'a stack trace'],
  [/ELIFECYCLE/, "pnpm's [ELIFECYCLE] failure line"],
  [/Update available/i, 'an "Update available" notice'],
  [/^\s*• (Packages in scope|Running )/m, "turbo's run banner"],
];

/**
 * Runs one command with bash in `cwd`, in a process group of its own. A stop is a Ctrl-C to the
 * program: SIGINT to the command's innermost processes (the whole group where /proc cannot tell
 * them). A hang guard, never a timing assertion: a command that has not
 * ended after `hangMs` is killed and reported.
 */
export async function runCommand(command: ReadmeCommand, options: { cwd: string; env: NodeJS.ProcessEnv; prelude: string; hangMs: number }): Promise<CommandOutcome> {
  const child = spawn('bash', ['-c', `${options.prelude}${command.command}`], { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdoutLines = 0;
  let stopped = false;
  let problem: string | null = null;
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group is gone already.
    }
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // A viewer's page must answer before it is stopped.
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(output)?.[0];
    if (url !== undefined) {
      const status = await fetch(url).then((response) => response.status, (error: unknown) => String(error));
      if (status !== 200) problem = `GET ${url} answered ${status}`;
    }
    // The program gets the Ctrl-C; pnpm, whose own reaction to a Ctrl-C races its child's exit
    // (it sometimes reports [ELIFECYCLE] for a child that exited 0), sees the program end.
    const program = leafProcesses(child.pid!);
    if (program.length === 0) kill('SIGINT');
    for (const pid of program) signalProcess(pid, 'SIGINT');
  };
  let stdoutText = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdoutText += chunk.toString();
    // The program's own lines: pnpm's echo of the script it runs (`$ exec node …`) comes first
    // and says nothing about whether the program is up (stopping at it raced the viewer's start).
    stdoutLines = stdoutText.split('\n').slice(0, -1).filter((line) => !line.startsWith('$ ')).length;
    if (command.mode === 'stop' && stdoutLines > 0) void stop();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const guard = setTimeout(() => {
    problem = `still running after ${options.hangMs / 1000} s (hang guard): killed`;
    kill('SIGKILL');
  }, options.hangMs);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
  clearTimeout(guard);
  // Anything the command left in its group (a server it started) goes with it.
  kill('SIGKILL');
  if (problem === null && command.mode === 'stop' && !stopped) problem = 'ended before it printed a line';
  if (problem === null && code !== 0) problem = `exit ${code ?? signal}`;
  if (problem === null) problem = NOISE.find(([pattern]) => pattern.test(output))?.[1] ?? null;
  return { where: command.where, command: command.command, code, signal, output, problem };
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}

/** The processes under `root` that have no children of their own (the programs a command runs), read from /proc; empty where there is none. */
function leafProcesses(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  for (const name of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after its last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const leaves: number[] = [];
  const visit = (pid: number) => {
    const below = children.get(pid) ?? [];
    if (below.length === 0 && pid !== root) leaves.push(pid);
    below.forEach(visit);
  };
  visit(root);
  return leaves;
}

/**
 * Runs a README's shell blocks in order, each in `cwd` with its `tmp` paths replaced by fresh
 * temporary directories (removed afterwards); `export NAME=value` lines apply to the block's
 * later commands.
 */
export async function runShellBlock(block: ReadmeBlock, options: { cwd: string; env: NodeJS.ProcessEnv; hangMs: number; onCommand?: (outcome: CommandOutcome) => void }): Promise<CommandOutcome[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'roundtable-docs-'));
  try {
    const replacements = new Map(block.markers.tmp.map((path) => [path, join(scratch, basename(path))]));
    const outcomes: CommandOutcome[] = [];
    let prelude = '';
    for (const command of blockCommands(block, replacements)) {
      if (command.skip !== null) continue;
      if (/^export \w+=/.test(command.command)) {
        prelude += `${command.command}\n`;
        continue;
      }
      const outcome = await runCommand(command, { ...options, prelude });
      options.onCommand?.(outcome);
      outcomes.push(outcome);
      if (outcome.problem !== null) break;
    }
    return outcomes;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * A fresh copy of the repository's files (tracked and untracked, not ignored: no
 * node_modules, no build output, no records), installed from the store offline, for a block
 * that changes the workspace. Builds there restore from `turboCache`, the checkout's cache.
 */
export async function copyRepository(root: string): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), 'roundtable-docs-copy-'));
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'buffer', maxBuffer: 64 << 20 });
  if (files.status !== 0) throw new Error(`git ls-files failed: ${files.stderr.toString()}`);
  const tar = spawnSync('bash', ['-c', `tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C ${JSON.stringify(copy)}`], { cwd: root, input: files.stdout, maxBuffer: 64 << 20 });
  if (tar.status !== 0) throw new Error(`copying the repository failed: ${tar.stderr.toString()}`);
  return copy;
}
