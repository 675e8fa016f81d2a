import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { STACK_LINE, assertBuilt, roundtable, writeRecord } from './__fixtures__/helpers.js';
import type { CliResult } from './__fixtures__/helpers.js';
import { anyString, firstUnprintable } from './__fixtures__/unprintable.js';

// Random argv for every command, flag and value the CLI's own help lists, plus flags it does
// not know: whatever a user types ends in exit 0, 1 or 2 with a typed `roundtable: CODE:`
// line, never UNEXPECTED, a stack or a raw control character.

let scratch: string;
let previousCwd: string;
let fsStore: string;
let sqliteStore: string;

beforeAll(async () => {
  assertBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-argv-'));
  fsStore = join(scratch, 'record');
  sqliteStore = join(scratch, 'record.sqlite');
  await Promise.all([writeRecord('fs', fsStore, 'seed-run', 'seed'), writeRecord('fs', fsStore, 'controls-run', 'controls'), writeRecord('sqlite', sqliteStore, 'seed-run', 'seed')]);
  // Relative paths among the random values (--store, --out) land in the scratch folder.
  previousCwd = process.cwd();
  process.chdir(scratch);
}, 120_000);

afterAll(() => {
  process.chdir(previousCwd);
  rmSync(scratch, { recursive: true, force: true });
});

/** The CLI in this process; the signal is already aborted, so follows and the viewer end at once. */
async function cliInProcess(argv: readonly string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    signal: AbortSignal.abort(),
  });
  return { code, stdout, stderr };
}

interface FlagSpec {
  readonly flags: readonly string[];
  /** The value's name in the help (`<url>`), or null for a switch. */
  readonly placeholder: string | null;
  readonly description: string;
}

interface CommandSpec {
  readonly name: string;
  /** How many run ids it takes: `<runId>` one, `[runIds...]` any number. */
  readonly runIds: 'one' | 'many' | 'none';
  readonly options: readonly FlagSpec[];
}

/** The commands, their arguments and options, read from the CLI's own help: a new one is fuzzed too. */
async function commandSpecs(): Promise<CommandSpec[]> {
  const help = (await cliInProcess(['--help'], {})).stdout;
  const names = [...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}(\w+)/gm)].map((match) => match[1]!);
  expect(names).toEqual(expect.arrayContaining(['runs', 'show', 'verify', 'rooms', 'tail', 'events', 'view']));
  return Promise.all(
    names.map(async (name) => {
      const commandHelp = (await cliInProcess([name, '--help'], {})).stdout;
      // --help and --version are among the noise: as options they would end half the runs before their work.
      const options = [...commandHelp.matchAll(/^ {2}(?:(-\w), )?(--[\w-]+)(?: <(\w+)>)? +(.*)$/gm)].map((match) => ({
        flags: [match[1], match[2]!].filter((flag): flag is string => flag !== undefined),
        placeholder: match[3] ?? null,
        description: match[4]!,
      })).filter((option) => !option.flags.includes('--help') && !option.flags.includes('--version'));
      const usage = commandHelp.split('\n')[0]!;
      return { name, runIds: usage.includes('<runId>') ? 'one' : usage.includes('[runIds...]') ? 'many' : 'none', options } as const;
    }),
  );
}

/** No `/` or `..`: a random path stays inside the scratch folder (this runs as whatever user CI is, root included). */
const contained = (text: string) => text.replace(/[/\\]/g, '_').replaceAll('..', '_');

/**
 * Argv for a command that mostly makes sense (a real store, a real run, values each option
 * takes) with random values, flags and tokens mixed in: so the random part reaches every
 * command's work, not only the first check that refuses it.
 */
function argvArbitrary(specs: readonly CommandSpec[]): fc.Arbitrary<string[]> {
  const randomValue = fc.oneof(
    fc.constantFrom('', '0', '-1', '1', '65535', '65536', '99999', '1e3', '1.5', '0x10', ' 1', '1 ', '-0', 'NaN', 'Infinity', '9'.repeat(40), 'no-such-run', 'yaml', '-', '--', '='),
    fc.oneof(fc.integer(), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.double()).map(String),
    anyString.map(contained),
    fc.constantFrom('missing', 'sqlite:missing.db', 'mysql://x', 'record', 'record.sqlite', `fs:${sqliteStore}`),
  );
  const sensible: Readonly<Record<string, readonly string[]>> = {
    url: [fsStore, `fs:${fsStore}`, sqliteStore, `sqlite:${sqliteStore}`],
    name: ['default', 'default', 'other'],
    dir: [join(scratch, 'out'), 'out'],
    id: ['review', 'side'],
    count: ['0', '1', '3'],
    revision: ['0', '3', '100'],
    n: ['0'],
  };
  const valueFor = (option: FlagSpec, placeholder: string) => {
    // The formats a command prints, as its help lists them.
    const values = placeholder === 'format' ? /output format: (.*)/.exec(option.description)![1]!.split(', ') : sensible[placeholder];
    return values === undefined ? randomValue : fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: randomValue });
  };
  const optionTokens = (option: FlagSpec): fc.Arbitrary<string[]> =>
    fc.constantFrom(...option.flags).chain((flag) =>
      option.placeholder === null
        ? fc.constant([flag])
        : fc.tuple(valueFor(option, option.placeholder), fc.boolean()).map(([value, inline]) => (inline && flag.startsWith('--') ? [`${flag}=${value}`] : [flag, value])),
    );
  const noise = (spec: CommandSpec) =>
    fc.oneof(
      { weight: 3, arbitrary: randomValue.map((text) => [text]) },
      // A flag alone: a value missing, or a switch given twice.
      { weight: 3, arbitrary: fc.constantFrom(...spec.options.flatMap((option) => option.flags), '--all').map((flag) => [flag]) },
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom('--', '-'), anyString).map(([dash, text]) => [`${dash}${contained(text)}`]) },
      { weight: 1, arbitrary: fc.constantFrom('-h', '--help', '-V', '--version').map((flag) => [flag]) },
    );
  const runId = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('seed-run', 'controls-run') }, { weight: 1, arbitrary: randomValue });
  const runIds = (spec: CommandSpec): fc.Arbitrary<string[]> => (spec.runIds === 'none' ? fc.constant([]) : fc.array(runId, { minLength: 1, maxLength: spec.runIds === 'one' ? 1 : 3 }));
  // The store mostly given, so the work is reached; the other options each half the time.
  const options = (spec: CommandSpec) => {
    const store = spec.options.filter((option) => option.flags.includes('--store'));
    const others = spec.options.filter((option) => !option.flags.includes('--store'));
    return fc
      .tuple(fc.option(fc.tuple(...store.map(optionTokens)), { freq: 5 }), fc.subarray(others).chain((chosen) => fc.tuple(...chosen.map(optionTokens))))
      .map(([storeTokens, otherTokens]) => [...(storeTokens ?? []), ...otherTokens].flat());
  };
  const command = fc.constantFrom(...specs).chain((spec) =>
    fc.tuple(runIds(spec), options(spec), fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 2, arbitrary: fc.array(fc.tuple(noise(spec), fc.nat()), { minLength: 1, maxLength: 2 }) })).map(([ids, tokens, extras]) => {
      const argv = [spec.name, ...ids, ...tokens];
      for (const [extra, at] of extras) argv.splice(1 + (at % argv.length), 0, ...extra);
      return argv;
    }),
  );
  const stray = fc.array(randomValue, { maxLength: 4 });
  return fc.oneof({ weight: 19, arbitrary: command }, { weight: 1, arbitrary: stray }).map(fixedPorts);
}

/**
 * A valid port other than 0 becomes 0: the fuzz checks the CLI, it must not bind fixed ports
 * other tests or services on this machine may be using.
 */
function fixedPorts(argv: string[]): string[] {
  const listenable = (text: string) => /^\d+$/.test(text) && Number(text) > 0 && Number(text) <= 65_535;
  return argv.map((token, index) => {
    if (argv[index - 1] === '--port' && listenable(token)) return '0';
    if (token.startsWith('--port=') && listenable(token.slice(7))) return '--port=0';
    return token;
  });
}

function expectTyped(argv: readonly string[], result: CliResult): void {
  const what = `${JSON.stringify(argv)} → ${result.code}\nstdout: ${result.stdout.slice(0, 500)}\nstderr: ${result.stderr.slice(0, 500)}`;
  expect([0, 1, 2], what).toContain(result.code);
  expect(result.stderr, what).not.toMatch(/UNEXPECTED/);
  expect(result.stderr + result.stdout, what).not.toMatch(STACK_LINE);
  if (result.code !== 0) expect(result.stderr, what).toMatch(/^roundtable: [A-Z_]+: /m);
  expect(firstUnprintable(result.stderr, '\n'), what).toBeNull();
  // `rooms` separates a room from its file with a tab.
  expect(firstUnprintable(result.stdout, '\n\t'), what).toBeNull();
}

const ENV = fc.constantFrom<Record<string, string>>({}, { ROUNDTABLE_STORE: '' }, { ROUNDTABLE_STORE: 'missing' });
const IN_PROCESS_RUNS = process.env.FAULT_SCALE === 'full' ? 3000 : 400;
const BINARY_RUNS = 24;

describe('random argv', () => {
  it(`in process (${IN_PROCESS_RUNS} runs): exit 0, 1 or 2 with a typed code, never UNEXPECTED, a stack or a raw control`, { timeout: 60_000 + IN_PROCESS_RUNS * 500 }, async () => {
    const specs = await commandSpecs();
    const env = fc.oneof(ENV, fc.constantFrom({ ROUNDTABLE_STORE: fsStore }, { ROUNDTABLE_STORE: sqliteStore }));
    await fc.assert(
      fc.asyncProperty(argvArbitrary(specs), env, async (argv, environment) => {
        expectTyped(argv, await cliInProcess(argv, environment));
      }),
      { numRuns: IN_PROCESS_RUNS },
    );
  });

  it(`through the built binary (${BINARY_RUNS} processes): the same`, { timeout: 30_000 + BINARY_RUNS * 10_000 }, async () => {
    const specs = await commandSpecs();
    // A follow or the viewer runs until Ctrl-C: the in-process runs cover them, with an aborted signal.
    const ends = (argv: readonly string[]) => argv[0] !== 'view' && !argv.some((token) => token.startsWith('--follow') || /^-[A-Za-z]*f/.test(token));
    // argv cannot carry NUL.
    const samples = fc.sample(fc.tuple(argvArbitrary(specs).filter(ends).map((argv) => argv.map((token) => token.replaceAll('\u0000', '_'))), ENV), { numRuns: BINARY_RUNS, seed: 22 });
    for (const [argv, env] of samples) expectTyped(argv, await roundtable(argv, env, { cwd: scratch }));
  });
});
