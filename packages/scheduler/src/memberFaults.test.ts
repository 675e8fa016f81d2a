import { describe, expect, it } from 'vitest';
import { isWellFormedString } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition } from '@roundtable/graph';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import type { MemoryBacking } from '@roundtable/storage-memory';
import { createGraphExecutor, isGraphExecutionError } from './index.js';
import type { GraphRunResult, NodeBinding } from './index.js';
import { compileSeed, readAll, seedNodes } from './__fixtures__/testTeams.js';

// Issue 9, executor part: whatever a member or its hooks throw or return, exactly one
// well-formed outcome is recorded, a fresh executor folds the record, and nothing is stranded.

const RUN = 'faults-1';

function soloTeam(ids: readonly string[] = ['solo']): TeamDefinition {
  return {
    id: 'solo-team',
    definitionVersion: 1,
    data: { task: 'Try it.', globalConcurrency: ids.length, maxTurnsPerMember: 1, communication: { rooms: [{ id: 'room', members: [...ids] }], tailMessages: 2 } },
    nodes: ids.map((id) => ({ id, data: { role: id, brief: 'Do it.' } })),
    edges: [],
  };
}

const solo = () => compileGraph(teamGraphType, soloTeam());

/** Runs the solo member once; checks the record holds one outcome and a fresh executor agrees. */
async function runOnce(binding: NodeBinding): Promise<{ result: GraphRunResult; outcome: { type: string; payload: Record<string, Json> } }> {
  const backing = createMemoryBacking();
  const result = await (await createGraphExecutor({ runId: RUN, graph: solo(), storage: createMemoryStorage({ backing }), nodes: { solo: binding } })).run();
  const outcome = await checkRecord(backing, result);
  return { result, outcome };
}

async function checkRecord(backing: MemoryBacking, result: GraphRunResult) {
  const storage = createMemoryStorage({ backing });
  const events = await readAll(storage, RUN);
  const outcomes = events.filter((event) => ['graph:node-completed', 'graph:node-failed', 'graph:node-paused'].includes(event.type));
  expect(outcomes).toHaveLength(1);
  expect(events.at(-1)).toBe(outcomes[0]);
  for (const value of Object.values(outcomes[0]!.payload as Record<string, Json>)) {
    if (typeof value === 'string') expect(isWellFormedString(value)).toBe(true);
  }
  // A fresh executor folds the whole record and reports the same result, running nothing.
  const refuse = () => {
    throw new Error('replay must not run a member');
  };
  const fresh = await createGraphExecutor({ runId: RUN, graph: solo(), storage, nodes: { solo: refuse } });
  expect(await fresh.run()).toEqual(result);
  return outcomes[0] as unknown as { type: string; payload: Record<string, Json> };
}

function errorWithMessage(message: unknown): Error {
  const error = new Error('placeholder');
  Object.defineProperty(error, 'message', { value: message });
  return error;
}

const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error('trap: get');
    },
    getPrototypeOf() {
      throw new Error('trap: getPrototypeOf');
    },
    ownKeys() {
      throw new Error('trap: ownKeys');
    },
    getOwnPropertyDescriptor() {
      throw new Error('trap: getOwnPropertyDescriptor');
    },
  },
);

describe('thrown values become one well-formed EFFECT_FAILED', () => {
  it.each<[string, unknown, string | RegExp]>([
    ['an Error whose message is a number', errorWithMessage(42), '42'],
    ['an Error whose message is an object', errorWithMessage({ nested: true }), 'An error whose message is not a string was thrown.'],
    ['an Error whose message is undefined', errorWithMessage(undefined), 'An error without a message was thrown.'],
    ['an Error whose message has a lone surrogate', new Error('cut \ud83d here'), 'cut \ufffd here'],
    ['a string with a lone low surrogate', '\udc00 tail', '\ufffd tail'],
    ['a number', 7, 'A number was thrown: 7'],
    ['undefined', undefined, 'A undefined was thrown: undefined'],
    ['null', null, 'null was thrown.'],
    ['a symbol', Symbol('s'), 'A symbol was thrown: Symbol(s)'],
    ['a BigInt', 10n, 'A bigint was thrown: 10'],
    ['an object whose message getter throws', Object.defineProperty({}, 'message', { get: () => { throw new Error('getter'); } }), /cannot be read/],
    ['a Proxy whose traps all throw', hostile, /cannot be read/],
    ['a very long message', new Error('x'.repeat(100_000)), /^x{8192}…$/],
  ])('%s', async (_name, thrownValue, message) => {
    const { result, outcome } = await runOnce(() => {
      throw thrownValue;
    });
    expect(outcome.type).toBe('graph:node-failed');
    expect(outcome.payload.code).toBe('EFFECT_FAILED');
    if (typeof message === 'string') expect(outcome.payload.message).toBe(message);
    else expect(outcome.payload.message).toMatch(message);
    expect(result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED', failures: [{ memberId: 'solo', code: 'EFFECT_FAILED' }] });
  });

  it('a returned Proxy whose traps throw is a throw (awaiting it reads `then`)', async () => {
    expect((await runOnce(() => hostile)).outcome.payload).toMatchObject({ code: 'EFFECT_FAILED', message: 'trap: get' });
  });

  it('a rejected promise and a thenable whose then getter throws', async () => {
    expect((await runOnce(() => Promise.reject(errorWithMessage(3)))).outcome.payload.message).toBe('3');
    const thenable = Object.defineProperty({}, 'then', { get: () => { throw errorWithMessage(Symbol('t')); } });
    expect((await runOnce(() => thenable)).outcome.payload).toMatchObject({ code: 'EFFECT_FAILED', message: 'Symbol(t)' });
  });
});

describe('returned values become one well-formed outcome', () => {
  it.each<[string, unknown, string]>([
    ['a result with a throwing getter', { get summary() { throw new Error('no'); } }, 'The result is not JSON at /summary: found an accessor property (a getter).'],
    ['a summary with a lone surrogate', { summary: 'a\ud800' }, 'The result is not JSON at /summary: found a string with a lone surrogate.'],
    ['a post text with a lone surrogate', { summary: 's', posts: [{ roomId: 'room', text: '\udfff', mentions: [] }] }, 'The result is not JSON at /posts/0/text: found a string with a lone surrogate.'],
    ['a key with a lone surrogate', { summary: 's', data: { '\ud800': 1 } }, 'The result is not JSON at /data/\ufffd: Key contains a lone surrogate.'],
    ['undefined', undefined, 'The result is not JSON: found undefined.'],
    ['a Date', new Date(0), 'The result is not JSON: found a Date.'],
    ['NaN in data', { summary: 's', data: { n: Number.NaN } }, 'The result is not JSON at /data/n: found NaN.'],
    ['a BigInt in data', { summary: 's', data: [1n] }, 'The result is not JSON at /data/0: found a BigInt.'],
    ['a function in data', { summary: 's', data: { f: () => 1 } }, 'The result is not JSON at /data/f: found a function.'],
  ])('%s is RESULT_INVALID naming what was found', async (_name, value, message) => {
    const { outcome } = await runOnce(() => value);
    expect(outcome.payload).toMatchObject({ code: 'RESULT_INVALID', message });
  });

  it('a refused post names the room and the member at fault', async () => {
    const graph = compileGraph(teamGraphType, {
      ...soloTeam(['a', 'b']),
      data: { task: 't', globalConcurrency: 2, maxTurnsPerMember: 1, communication: { rooms: [{ id: 'ab', members: ['a', 'b'] }, { id: 'b-only', members: ['b'] }], tailMessages: 2 } },
    });
    const storage = createMemoryStorage();
    const result = await (
      await createGraphExecutor({
        runId: RUN,
        graph,
        storage,
        nodes: { a: () => ({ summary: 's', posts: [{ roomId: 'b-only', text: 'hi', mentions: [] }] }), b: () => ({ summary: 's', posts: [{ roomId: 'ab', text: 'hi', mentions: ['zed'] }] }) },
      })
    ).run();
    expect(result).toEqual({
      kind: 'fail',
      code: 'TEAM_NODE_FAILED',
      message: 'Member "a" failed (RESULT_INVALID). Member "b" failed (RESULT_INVALID).',
      failures: [
        { memberId: 'a', position: 'team/a/1', code: 'RESULT_INVALID', message: 'Member "a" is not in room "b-only". (at /posts/0/roomId)' },
        { memberId: 'b', position: 'team/b/1', code: 'RESULT_INVALID', message: 'Member "b" mentioned "zed", who is not a member of room "ab". (at /posts/0/mentions/0)' },
      ],
    });
  });
});

describe('decideAction results become one well-formed outcome', () => {
  const run = () => ({ summary: 'ran' });
  it.each<[string, unknown, string, string]>([
    ['a deny reason with a lone surrogate', { kind: 'deny', reason: 'no \ud800' }, 'graph:node-failed', 'no \ufffd'],
    ['a wait reason with a lone surrogate', { kind: 'wait', reason: '\udc00?', request: null }, 'graph:node-paused', '\ufffd?'],
    ['a deny whose reason is a number', { kind: 'deny', reason: 5 }, 'graph:node-failed', 'decideAction returned deny with a reason that is not a string.'],
    ['a wait whose request is not JSON', { kind: 'wait', reason: 'r', request: { when: new Date(0) } }, 'graph:node-failed', "The request of decideAction's wait is not JSON at /when: found a Date."],
    ['a wait whose request has a lone surrogate', { kind: 'wait', reason: 'r', request: ['\ud800'] }, 'graph:node-failed', "The request of decideAction's wait is not JSON at /0: found a string with a lone surrogate."],
    ['an unknown kind', { kind: 'maybe' }, 'graph:node-failed', /its kind was "maybe"/.source],
    ['undefined', undefined, 'graph:node-failed', /not undefined/.source],
    ['a Proxy', hostile, 'graph:node-failed', /^decideAction failed: .*cannot be read|trap/.source],
    ['an action whose kind getter throws', Object.defineProperty({}, 'kind', { get: () => { throw errorWithMessage(undefined); } }), 'graph:node-failed', 'decideAction failed: An error without a message was thrown.'],
  ])('%s', async (_name, action, type, text) => {
    const { outcome } = await runOnce({ run, decideAction: () => action as never });
    expect(outcome.type).toBe(type);
    const recorded = type === 'graph:node-paused' ? outcome.payload.reason : outcome.payload.message;
    expect(recorded).toMatch(new RegExp(text.startsWith('/') ? text : text === recorded ? escape(text) : text));
  });

  it('a decideAction that throws a non-Error', async () => {
    const { outcome } = await runOnce({ run, decideAction: () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the point of the case
      throw 404;
    } });
    expect(outcome.payload).toMatchObject({ code: 'EFFECT_FAILED', message: 'decideAction failed: A number was thrown: 404' });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('bindings are own properties only', () => {
  const protoNames = ['toString', 'constructor', 'valueOf', 'hasOwnProperty'];

  it.each(protoNames)('a member named %s with no binding is MISSING_NODE_BINDING', async (name) => {
    const graph = compileGraph(teamGraphType, soloTeam([name, 'other']));
    const error = await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage(), nodes: { other: () => ({ summary: '' }) } }).catch((caught: unknown) => caught);
    expect(isGraphExecutionError(error, 'MISSING_NODE_BINDING')).toBe(true);
    expect((error as Error).message).toContain(`"${name}"`);
  });

  it('members named like Object.prototype functions run their own bindings', async () => {
    const graph = compileGraph(teamGraphType, soloTeam(protoNames));
    const nodes = Object.fromEntries(protoNames.map((name) => [name, () => ({ summary: `I am ${name}` })]));
    const result = await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage(), nodes })).run();
    expect(result.kind === 'complete' && (result.output as { agents: { result: { summary: string } }[] }).agents.map((agent) => agent.result.summary)).toEqual(
      protoNames.map((name) => `I am ${name}`),
    );
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 3],
  ])('nodes of %s is MISSING_NODE_BINDING, not a TypeError', async (_name, nodes) => {
    const error = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes: nodes as never }).catch((caught: unknown) => caught);
    expect(isGraphExecutionError(error, 'MISSING_NODE_BINDING')).toBe(true);
  });

  it('an inherited binding does not count', async () => {
    const nodes = Object.create({ writer: seedNodes.writer }) as Record<string, NodeBinding>;
    nodes.reviewer = seedNodes.reviewer;
    const error = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes }).catch((caught: unknown) => caught);
    expect(isGraphExecutionError(error, 'MISSING_NODE_BINDING')).toBe(true);
  });

  it('a key that names no node is UNKNOWN_NODE_BINDING, before anything is written', async () => {
    const storage = createMemoryStorage();
    const error = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: { ...seedNodes, Writer: seedNodes.writer } }).catch((caught: unknown) => caught);
    expect(isGraphExecutionError(error, 'UNKNOWN_NODE_BINDING')).toBe(true);
    expect((error as Error).message).toContain('"Writer"');
    expect(await storage.head(RUN)).toBe(0);
  });

  it.each([
    ['retry.maxAttempts 0', { run: seedNodes.reviewer, retry: { maxAttempts: 0 } }],
    ['retry.maxAttempts 1.5', { run: seedNodes.reviewer, retry: { maxAttempts: 1.5 } }],
    ['retry.codes not an array', { run: seedNodes.reviewer, retry: { maxAttempts: 2, codes: 'TIMEOUT' } }],
    ['retry.backoffMs negative', { run: seedNodes.reviewer, retry: { maxAttempts: 2, backoffMs: -1 } }],
    ['limits.timeoutMs NaN', { run: seedNodes.reviewer, limits: { timeoutMs: Number.NaN } }],
    ['a contract without validate', { run: seedNodes.reviewer, contract: {} }],
    ['a decideAction that is not a function', { run: seedNodes.reviewer, decideAction: 'allow' }],
    ['a retrySafe that is not a boolean', { run: seedNodes.reviewer, retrySafe: 'yes' }],
  ])('%s is INVALID_NODE_BINDING', async (_name, binding) => {
    const error = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes: { writer: seedNodes.writer, reviewer: binding as never } }).catch(
      (caught: unknown) => caught,
    );
    expect(isGraphExecutionError(error, 'INVALID_NODE_BINDING')).toBe(true);
  });
});

describe('an executor that lost a race learns the outcome', () => {
  it('run() folds what another executor appended before reporting waiting or the result', async () => {
    const backing = createMemoryBacking();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slowWriter = async (ctx: { input: unknown; position: string }) => {
      if (ctx.position === 'team/writer/1') {
        started();
        await gate;
      }
      return seedNodes.writer(ctx);
    };
    const a = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: { writer: slowWriter, reviewer: seedNodes.reviewer } });
    const first = a.run();
    await running;
    // B opens while A's first attempt runs: the attempt is someone else's, so B is waiting.
    const b = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: seedNodes });
    expect(await b.run()).toEqual({ kind: 'waiting', positions: ['team/writer/1'] });
    release();
    const done = await first;
    expect(done.kind).toBe('complete');
    // B's state is stale, but run() reads what is new before it reports anything.
    expect(await b.run()).toEqual(done);
    expect(b.revision).toBe(await createMemoryStorage({ backing }).head(RUN));
  });

  it('a paused run is reported from the latest record, even when another executor resumed it', async () => {
    const backing = createMemoryBacking();
    const asking = {
      run: seedNodes.writer,
      decideAction: (ctx: { resume: Json; position: string }) =>
        ctx.resume === null && ctx.position === 'team/writer/1' ? { kind: 'wait' as const, reason: 'ok?', request: { q: 1 } } : { kind: 'allow' as const },
    };
    const nodes = { writer: asking, reviewer: seedNodes.reviewer };
    const a = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    const b = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    expect(await a.run()).toMatchObject({ kind: 'pause', position: 'team/writer/1' });
    expect(await b.run()).toMatchObject({ kind: 'pause', position: 'team/writer/1' });
    expect((await a.resume('team/writer/1', { value: 'yes' })).kind).toBe('complete');
    expect((await b.run()).kind).toBe('complete');
  });
});

describe('an abort while a sibling attempt waits in decideAction', () => {
  // Found by the attempt fuzz: a run aborted while another attempt of the batch awaited its
  // decideAction started that member anyway, with a signal whose abort event had already
  // fired, so a member (and the timeout race) waiting for that event hung `run()` for ever.
  it('ends the run with ABORTED and never starts the waiting member', async () => {
    const graph = compileGraph(teamGraphType, soloTeam(['a', 'b']));
    const controller = new AbortController();
    let bStarted = false;
    const executor = await createGraphExecutor({
      runId: RUN,
      graph,
      storage: createMemoryStorage(),
      nodes: {
        a: { decideAction: () => Promise.resolve({ kind: 'allow' as const }), run: () => (controller.abort(), { summary: 'a' }), limits: { timeoutMs: 5 } },
        b: {
          decideAction: () => Promise.resolve({ kind: 'allow' as const }),
          run: (ctx) => {
            bStarted = true;
            return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ summary: 'late' }), { once: true }));
          },
          limits: { timeoutMs: 5 },
        },
      },
    });
    await expect(executor.run(controller.signal)).rejects.toSatisfy((error: unknown) => isGraphExecutionError(error, 'ABORTED'));
    expect(bStarted).toBe(false);
  });
});
