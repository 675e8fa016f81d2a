import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDemoArgs } from './demoArgs.js';

// Known flags and values, bad values, unknown flags and stray words, in any order.
const TOKENS = ['--storage', 'fs', 'sqlite', 'memory', 'postgres', 'mongo', '--keep', 'out', '', '--engine', 'functions', 'ai-sdk', 'gpt', '--help', '-h', '--', '--storage=sqlite', '--keep=', '--nope', '-x', '--storag', 'stray', '--reviewer', 'approve', 'reject', 'maybe', '--run', 'fork-1', 'no spaces'];
const UNKNOWN = new Set(['--nope', '-x', '--storag']);

/** The built program's exit code and stderr for argv. */
function runBuilt(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...argv], (error, _stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number | null), stderr }));
  });
}

describe("the demo's flags", () => {
  it('parse any argv to a run, help or a one-line usage error, never a throw; an unknown flag is always usage', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 8 }), (argv) => {
        const args = parseDemoArgs(argv);
        if (args.kind === 'usage') expect(args.message).toMatch(/^[^\n]+$/);
        if (argv.some((arg) => UNKNOWN.has(arg))) expect(args.kind).toBe('usage');
        if (args.kind === 'run') expect(['memory', 'fs', 'sqlite', 'postgres']).toContain(args.storage);
        if (args.kind === 'run') expect(['approve', 'reject']).toContain(args.reviewer);
        if (args.kind === 'run' && args.runId !== undefined) expect(args.runId).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
      }),
      { numRuns: 300 },
    );
  });

  it('a bad --reviewer or --run is usage, naming the flag', () => {
    expect(parseDemoArgs(['--reviewer', 'maybe'])).toEqual({ kind: 'usage', message: '--reviewer must be one of approve, reject, not "maybe"' });
    expect(parseDemoArgs(['--run', 'no spaces'])).toMatchObject({ kind: 'usage', message: expect.stringMatching(/^--run must be a run id/) });
    expect(parseDemoArgs(['--run', 'fork-1', '--engine', 'ai-sdk'])).toMatchObject({ kind: 'usage' });
    expect(parseDemoArgs(['--run', 'fork-1', '--reviewer', 'reject'])).toMatchObject({ kind: 'run', runId: 'fork-1', reviewer: 'reject' });
  });

  it('an unknown flag to the built program is a typed USAGE error on one line and exit 2, no stack', async () => {
    const { code, stderr } = await runBuilt(['--nope']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^demo: USAGE: Unknown option '--nope'\.\nUsage: /);
    expect(stderr).not.toMatch(/\n\s+at |ERR_parseDemoArgs_ARGS/);
  });
});
