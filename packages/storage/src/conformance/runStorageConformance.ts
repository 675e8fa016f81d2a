import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { conformanceCases } from './cases.js';
import { CaseContext, ConformanceCheckFailed, describeError } from './harness.js';
import type { CreateStorage } from './harness.js';

export interface StorageConformanceOptions {
  /** What is being tested, e.g. the adapter's package name; repeated in the result. */
  readonly name: string;
  /**
   * Opens a fresh instance over the backing data shared by the whole run (the same directory,
   * file or memory backing every time), passing `options` through to the adapter. The kit sets
   * `namespace`, `limits` and `knownSecrets` through it; without options, adapter defaults apply.
   */
  readonly create: CreateStorage;
  /** Removes the backing data once every case has run (and every instance was closed). */
  readonly destroy?: () => void | Promise<void>;
  /** Run only these cases (by name); all of them by default. */
  readonly only?: readonly string[];
  /** How long one case may take before it counts as hung (default 120,000 ms). */
  readonly caseTimeoutMs?: number;
  /** Seed of the random-operations case (default 1); a failure message names the seed it used. */
  readonly seed?: number;
}

export interface ConformanceCaseResult {
  readonly name: string;
  /** The rule the case holds the adapter to, in a sentence. */
  readonly rule: string;
  readonly ok: boolean;
  readonly durationMs: number;
}

export interface ConformanceFailure {
  /** The case name, or `options` / `destroy` for a problem outside any case. */
  readonly case: string;
  readonly message: string;
}

export interface StorageConformanceResult {
  readonly name: string;
  /** True when every case passed and nothing else failed: `failures` is empty. */
  readonly ok: boolean;
  /** Every case that ran, in order. */
  readonly cases: readonly ConformanceCaseResult[];
  /** Every failure; one case may have more than one (its check, and closing its instances). */
  readonly failures: readonly ConformanceFailure[];
}

/** The names of every case, in the order they run. */
export const conformanceCaseNames: readonly string[] = conformanceCases.map((definition) => definition.name);

const CLOSE_TIMEOUT_MS = 10_000;

async function withinTime<T>(work: () => T | Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConformanceCheckFailed(`${what} did not finish within ${ms} ms (a hang, or instances waiting on each other).`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(work), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function failureMessage(error: unknown): string {
  return error instanceof ConformanceCheckFailed ? error.message : `unexpected ${describeError(error)}`;
}

function runToken(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
}

function selectCases(only: readonly string[] | undefined, failures: ConformanceFailure[]): readonly ConformanceCaseDefinition[] {
  if (only === undefined) return conformanceCases;
  const unknown = only.filter((name) => !conformanceCaseNames.includes(name));
  if (unknown.length > 0) failures.push({ case: 'options', message: `only names unknown cases: ${unknown.join(', ')}.` });
  return conformanceCases.filter((definition) => only.includes(definition.name));
}

/**
 * Runs every rule of the storage contract against an adapter and reports what failed. It never
 * throws for an adapter's misbehaviour (a rejection, a wrong value, a hang): each becomes a
 * failure of the case it broke, and the run goes on. Every instance a case opened is closed
 * after it, whatever happened.
 */
export async function runStorageConformance(options: StorageConformanceOptions): Promise<StorageConformanceResult> {
  const failures: ConformanceFailure[] = [];
  const cases: ConformanceCaseResult[] = [];
  const name = typeof options?.name === 'string' ? options.name : 'storage';
  if (typeof options?.create !== 'function') {
    failures.push({ case: 'options', message: 'create must be a function that returns a RunStorage.' });
    return { name, ok: false, cases, failures };
  }
  const timeoutMs = options.caseTimeoutMs ?? 120_000;
  const seed = options.seed ?? 1;
  const token = runToken();

  for (const definition of selectCases(options.only, failures)) {
    const context = new CaseContext(options.create, token, definition.name, seed, timeoutMs);
    const started = Date.now();
    let ok = true;
    try {
      await withinTime(() => definition.run(context), timeoutMs, `case ${definition.name}`);
    } catch (error) {
      ok = false;
      failures.push({ case: definition.name, message: failureMessage(error) });
    }
    for (const storage of context.opened) {
      try {
        await withinTime(() => storage.close(), CLOSE_TIMEOUT_MS, 'close()');
      } catch (error) {
        ok = false;
        failures.push({ case: definition.name, message: `closing an instance after the case: ${failureMessage(error)}` });
      }
    }
    cases.push({ name: definition.name, rule: definition.rule, ok, durationMs: Date.now() - started });
  }

  if (options.destroy !== undefined) {
    const destroy = options.destroy;
    try {
      await withinTime(() => destroy(), timeoutMs, 'destroy()');
    } catch (error) {
      failures.push({ case: 'destroy', message: failureMessage(error) });
    }
  }
  return { name, ok: failures.length === 0, cases, failures };
}
