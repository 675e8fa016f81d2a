import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExampleArgs } from './exampleArgs.js';

// Known flags and values, bad values, unknown flags and stray words, in any order.
const TOKENS = ['--workers', '--runs', '--think-ms', '0', '1', '3', '-1', '1.5', '1e3', 'x', '', '--help', '-h', '--', '--runs=2', '--nope', '-x', '--worker', 'stray'];
const UNKNOWN = new Set(['--nope', '-x', '--worker']);

/** The built program's exit code and stderr for argv. */
function runBuilt(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...argv], (error, _stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number | null), stderr }));
  });
}

describe("the workers example's flags", () => {
  it('parse any argv to a run, help or a one-line usage error, never a throw; an unknown flag is always usage', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 8 }), (argv) => {
        const args = parseExampleArgs(argv);
        if (args.kind === 'usage') expect(args.message).toMatch(/^[^\n]+$/);
        if (argv.some((arg) => UNKNOWN.has(arg))) expect(args.kind).toBe('usage');
        if (args.kind === 'run') expect(args.workers >= 1 && args.runs >= 1 && args.thinkMs >= 0).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('an unknown flag to the built program is a typed USAGE error on one line and exit 2, no stack', async () => {
    const { code, stderr } = await runBuilt(['--nope']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^workers-example: USAGE: Unknown option '--nope'\.\nUsage: /);
    expect(stderr).not.toMatch(/\n\s+at |ERR_parseExampleArgs_ARGS/);
  });
});
