import fc from 'fast-check';
import { afterAll, describe as suite, expect, it } from 'vitest';
import { isRoundtableError, isWellFormedString } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { GraphRunResult, NodeBinding, NodeContext } from '@roundtable/scheduler';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import type { MemoryBacking } from '@roundtable/storage-memory';
import { FULL, countFuzzCase, faultCounts, reportFaults } from './faultReport.js';

// The attempt path under arbitrary member behaviour (issue 9): thrown values, returned values,
// decideAction results, retries and abort timings. After every run a fresh executor must fold
// the record without error, and the run must not be stranded: driving it with plain members
// (resume what waits, answer what pauses) always reaches complete or fail.

const CASES = FULL ? 30_000 : 300;
// ATTEMPT_FUZZ_CASES (with ATTEMPT_FUZZ_SEED) replays a failure with fewer or more cases.
const RUNS = Number(process.env.ATTEMPT_FUZZ_CASES ?? CASES);
afterAll(() => reportFaults('attempt fuzz'));

const RUN = 'attempt-fuzz';
const MEMBERS = ['a', 'b', 'c'] as const;

const definition: TeamDefinition = {
  id: 'attempt-fuzz-team',
  definitionVersion: 1,
  data: {
    task: 'Survive whatever the members do.',
    globalConcurrency: 2,
    maxTurnsPerMember: 2,
    communication: { rooms: [{ id: 'all', members: [...MEMBERS] }, { id: 'ab', members: ['a', 'b'] }], tailMessages: 2 },
  },
  nodes: MEMBERS.map((id, index) => ({ id, data: { role: id, brief: 'Fuzz.', initialTurn: index < 2 } })),
  edges: [],
};
const graph = compileGraph(teamGraphType, definition);

/** Strings with lone surrogates mixed in. */
const oddString = fc
  .array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit))), { maxLength: 4 })
  .map((parts) => parts.join(''));

/**
 * Hostile values throw only while a case runs: fast-check itself inspects generated values
 * (and prints them on failure), and must not trip over them.
 */
let armed = false;

function hostileProxy(): object {
  const check = (name: string) => {
    if (armed) throw new Error(`trap: ${name}`);
  };
  return new Proxy(
    {},
    {
      get: (target, key, receiver) => (check('get'), Reflect.get(target, key, receiver) as unknown),
      getPrototypeOf: (target) => (check('getPrototypeOf'), Reflect.getPrototypeOf(target)),
      ownKeys: (target) => (check('ownKeys'), Reflect.ownKeys(target)),
      getOwnPropertyDescriptor: (target, key) => (check('getOwnPropertyDescriptor'), Reflect.getOwnPropertyDescriptor(target, key)),
      has: (target, key) => (check('has'), Reflect.has(target, key)),
    },
  );
}

function throwingGetter(): object {
  return Object.defineProperty({}, 'message', {
    enumerable: true,
    get: () => {
      if (armed) throw new Error('getter');
      return 'harmless until armed';
    },
  });
}

function errorWithMessage(message: unknown): Error {
  const error = new Error('placeholder');
  Object.defineProperty(error, 'message', { value: message, configurable: true });
  return error;
}

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything(),
  oddString,
  fc.constantFrom(undefined, null, Number.NaN, Number.POSITIVE_INFINITY, -0, 10n, Symbol('s'), new Date(0), new Map(), () => 1),
  fc.constant(null).map(() => hostileProxy()),
  fc.constant(null).map(() => throwingGetter()),
);

const thrown: fc.Arbitrary<unknown> = fc.oneof(oddValue, oddValue.map(errorWithMessage), oddString.map((message) => new Error(message)));

const post = fc.record({
  roomId: fc.oneof(fc.constantFrom('all', 'ab', 'nowhere'), oddString),
  text: fc.oneof(fc.string({ maxLength: 20 }), oddString),
  mentions: fc.array(fc.oneof(fc.constantFrom(...MEMBERS, 'zed'), oddValue), { maxLength: 3 }),
});

const returned: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ summary: fc.string({ maxLength: 10 }), posts: fc.array(post, { maxLength: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ summary: fc.oneof(fc.string({ maxLength: 10 }), oddString), data: oddValue }, { requiredKeys: ['summary'] }) },
  { weight: 1, arbitrary: oddValue },
);

const action: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'allow' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait'), reason: fc.oneof(fc.string({ maxLength: 8 }), oddString, oddValue), request: oddValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deny'), reason: fc.oneof(fc.string({ maxLength: 8 }), oddString, oddValue) }) },
  { weight: 1, arbitrary: oddValue },
);

/** What one call of `run` or `decideAction` does. */
type Step =
  | { readonly kind: 'return'; readonly value: unknown; readonly async: boolean }
  | { readonly kind: 'throw'; readonly value: unknown; readonly async: boolean }
  | { readonly kind: 'hang' };

const runStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('return' as const), value: returned, async: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('throw' as const), value: thrown, async: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'hang' as const }) },
);
const decideStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('return' as const), value: action, async: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('throw' as const), value: thrown, async: fc.boolean() }) },
);

const memberScript = fc.record({
  runs: fc.array(runStep, { maxLength: 5 }),
  decides: fc.option(fc.array(decideStep, { maxLength: 4 }), { nil: null }),
  retry: fc.option(fc.record({ maxAttempts: fc.integer({ min: 1, max: 3 }), codes: fc.option(fc.subarray(['EFFECT_FAILED', 'TIMEOUT', 'RESULT_INVALID', 'OUTPUT_LIMIT', 'DENIED']), { nil: undefined }) }), {
    nil: undefined,
  }),
  retrySafe: fc.boolean(),
  outputBytes: fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
});

const abortTiming = fc.option(fc.record({ call: fc.nat(8), how: fc.constantFrom('sync', 'microtask', 'macrotask') }), { nil: null });

const scenario = fc.record({ a: memberScript, b: memberScript, c: memberScript, abort: abortTiming });
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function perform(step: Step | undefined, ctx: NodeContext, fallback: () => unknown): unknown {
  if (step === undefined) return fallback();
  if (step.kind === 'hang') return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ summary: 'late' }), { once: true }));
  if (step.kind === 'throw') {
    // Members may reject and throw anything at all: that is the point of the fuzz.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    if (step.async) return Promise.reject(step.value);
    throw step.value as Error;
  }
  return step.async ? Promise.resolve().then(() => step.value) : step.value;
}

/** The fuzzed bindings; after its script a member behaves (allow, a plain result). */
function fuzzedNodes(cases: Scenario, abortAt: (ctx: NodeContext) => void): Record<string, NodeBinding> {
  return Object.fromEntries(
    MEMBERS.map((id) => {
      const script = cases[id];
      let runCalls = 0;
      let decideCalls = 0;
      const binding: NodeBinding = {
        run: (ctx) => {
          abortAt(ctx);
          return perform(script.runs[runCalls++], ctx, () => ({ summary: `${id} fine` }));
        },
        retrySafe: script.retrySafe,
        limits: { timeoutMs: 5, ...(script.outputBytes === undefined ? {} : { outputBytes: script.outputBytes }) },
        ...(script.retry === undefined ? {} : { retry: { ...script.retry, ...(script.retry.codes === undefined ? {} : { codes: script.retry.codes }) } }),
        ...(script.decides === null ? {} : { decideAction: (ctx: NodeContext) => perform(script.decides![decideCalls++], ctx, () => ({ kind: 'allow' })) as never }),
      };
      return [id, binding];
    }),
  );
}

const plainNodes: Record<string, NodeBinding> = Object.fromEntries(MEMBERS.map((id) => [id, { run: () => ({ summary: `${id} recovered` }), retrySafe: true }]));

/** Drives a run to its end with plain members; throws if that takes too many steps (stranded). */
async function driveToEnd(backing: MemoryBacking): Promise<GraphRunResult> {
  const executor = await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage({ backing }), nodes: plainNodes });
  let result = await executor.run();
  for (let step = 0; step < 40; step++) {
    if (result.kind === 'complete' || result.kind === 'fail' || result.kind === 'cancelled') return result;
    if (result.kind === 'waiting') result = await executor.resume(result.positions[0]!);
    else result = await executor.resume(result.position!, { value: 'go on' });
  }
  throw new Error(`the run is stranded: ${JSON.stringify(result)}`);
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return 'an unreadable value';
  }
}

async function fuzzCase(cases: Scenario): Promise<void> {
  const backing = createMemoryBacking();
  const controller = new AbortController();
  let calls = 0;
  const abortAt = () => {
    if (cases.abort === null || calls++ !== cases.abort.call) return;
    if (cases.abort.how === 'sync') controller.abort();
    else if (cases.abort.how === 'microtask') queueMicrotask(() => controller.abort());
    else setImmediate(() => controller.abort());
  };
  armed = true;
  try {
    await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage({ backing }), nodes: fuzzedNodes(cases, abortAt) })).run(controller.signal);
  } catch (error) {
    if (!isRoundtableError(error, 'ABORTED')) throw new Error(`the run threw something other than ABORTED: ${describe(error)}`, { cause: error });
    faultCounts.typedErrors++;
  } finally {
    armed = false;
  }
  // Every recorded string is well-formed, and a fresh executor folds the record (INVALID_EVENT otherwise).
  for await (const event of createMemoryStorage({ backing }).read(RUN)) {
    for (const value of Object.values(event.payload as Record<string, unknown>)) if (typeof value === 'string') expect(isWellFormedString(value)).toBe(true);
  }
  const end = await driveToEnd(backing);
  expect(['complete', 'fail']).toContain(end.kind);
  faultCounts.recoveredRuns++;
}

suite('attempt path fuzzing', () => {
  it(`${RUNS} runs with arbitrary thrown values, results, decideAction results, retries and aborts: every record folds, no run is stranded`, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (cases) => {
        countFuzzCase('thrown values');
        await fuzzCase(cases);
      }),
      // A run that never settles is a failure with its counterexample, not a hung suite.
      { numRuns: RUNS, timeout: 5_000, ...(process.env.ATTEMPT_FUZZ_SEED ? { seed: Number(process.env.ATTEMPT_FUZZ_SEED) } : {}) },
    );
    // Every case ends recovered or fails the property, whatever the machine's speed.
    expect(faultCounts.recoveredRuns).toBeGreaterThanOrEqual(RUNS);
  });
});
