import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, assertBuilt, writeRecord } from './__fixtures__/helpers.js';

// A closed stdout (`roundtable events <run> | head -1`) is a normal end for a command line:
// exit 0, nothing on stderr. Each command of the built binary runs with its stdout pipe closed
// by the reader, at once or after the first bytes of more output than a pipe holds.

let scratch: string;
let store: string;

beforeAll(async () => {
  assertBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-epipe-'));
  store = join(scratch, 'record');
  await writeRecord('fs', store, 'seed-run', 'seed');
  await writeRecord('fs', store, 'long-run', 'long');
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the binary with a real stdout pipe whose reading end this process closes. */
function withClosedStdout(args: readonly string[], when: 'at once' | 'after the first bytes'): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args, '--store', store], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ROUNDTABLE_STORE: '' } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  if (when === 'at once') child.stdout.destroy();
  else child.stdout.once('data', () => child.stdout.destroy());
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stderr })));
}

const AT_ONCE: readonly (readonly string[])[] = [
  ['runs'],
  ['runs', '-o', 'json'],
  ['show', 'seed-run'],
  ['show', 'seed-run', '-o', 'json'],
  ['verify', '--all'],
  ['verify', '--all', '-o', 'json'],
  ['rooms', 'seed-run', '--out', 'OUT'],
  ['rooms', 'seed-run', '--out', 'OUT', '--follow'],
  ['tail', 'seed-run'],
  ['tail', 'seed-run', '-o', 'jsonl'],
  ['tail', 'seed-run', '-f'],
  ['events', 'seed-run'],
  ['events', 'seed-run', '-o', 'json'],
  ['events', 'seed-run', '-o', 'jsonl'],
  ['events', 'seed-run', '-f'],
  ['view'],
  ['--help'],
  ['show', '--help'],
  ['--version'],
];
// Each writes more than the reader takes at once and a pipe holds (a 220 kB post), so the
// reader is gone mid-output: a follow whose output so far fits in the pipe notices only at its
// next write, as any command line does.
const AFTER_FIRST_BYTES: readonly (readonly string[])[] = [
  ['events', 'long-run'],
  ['events', 'long-run', '-o', 'jsonl'],
  ['events', 'long-run', '-f', '-o', 'jsonl'],
  ['tail', 'long-run'],
  ['show', 'long-run', '-o', 'json'],
];

describe('a closed stdout', () => {
  const cases = [...AT_ONCE.map((args) => [args, 'at once'] as const), ...AFTER_FIRST_BYTES.map((args) => [args, 'after the first bytes'] as const)];
  it(`ends every command (${cases.length} runs of the binary) with exit 0 and nothing on stderr`, { timeout: 30_000 + cases.length * 10_000 }, async () => {
    for (const [args, when] of cases) {
      const result = await withClosedStdout(args.map((arg) => (arg === 'OUT' ? join(scratch, 'rooms') : arg)), when);
      expect(result, `${args.join(' ')}, stdout closed ${when}`).toEqual({ code: 0, signal: null, stderr: '' });
    }
  });
});
