import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoundtableError } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition } from '@roundtable/graph';
import { projectTeamRooms } from '@roundtable/rooms';
import { tempDirectoryPerFile } from '@roundtable/test-utils/harness';
import { createGraphExecutor } from '@roundtable/scheduler';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { RECORD_TURNS, asNew, completedRecord, recordNodes } from './faultRecord.js';
import { FAULT_RUN_ID, faultGraph, faultTeamDefinition } from './faultTeam.js';
import { FULL, countFuzzCase, faultCounts, reportFaults } from './faultReport.js';

// Malformed definitions, results and events must end in a typed Roundtable error (or be
// accepted), never an uncaught TypeError, a hang, or a partial write. Damaged files are in
// fileFuzz.test.ts, hostile event envelopes in envelopeFuzz.test.ts.

// The long form's share of the 100,000 fuzz cases; the bounded form runs a few hundred.
const RUNS = {
  definitions: FULL ? 45_000 : 150,
  results: FULL ? 20_000 : 150,
  records: FULL ? 15_000 : 150,
};
afterAll(() => reportFaults('fuzz'));

type Outcome = 'typed' | 'accepted' | 'recovered';

/** Runs `work`; anything thrown must be a RoundtableError, which is returned. */
async function typedOrFine(work: () => unknown): Promise<unknown> {
  try {
    await work();
    return null;
  } catch (error) {
    if (!isRoundtableError(error)) throw new Error(`untyped failure: ${String(error)}`, { cause: error });
    return error;
  }
}

/** Counts one fuzz case of `kind` and its one outcome. */
function counted(kind: string, outcome: Outcome): void {
  countFuzzCase(kind);
  if (outcome === 'typed') faultCounts.typedErrors++;
  else if (outcome === 'recovered') faultCounts.recoveredRuns++;
  else faultCounts.accepted++;
}

const TURNS = RECORD_TURNS;
const nodes = recordNodes;

/** Replaces the value at a random place in a JSON value. */
function mutateJson(value: Json, path: number[], replacement: unknown): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return replacement;
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  if (entries.length === 0) return replacement;
  const [key, child] = entries[path[0]! % entries.length]!;
  const copy = (Array.isArray(value) ? [...value] : { ...value }) as Record<string | number, unknown>;
  copy[key] = mutateJson(child, path.slice(1), replacement);
  return copy;
}

const weird = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(undefined, Number.NaN, -0, 2 ** 53, '', ' x', 'x\n', '\u2028', '../outside', 'team/ana/1', 'graph:node-completed'),
  fc.string(),
  fc.integer(),
);

const roomsDirectory = tempDirectoryPerFile('roundtable-fuzz-rooms-');
let roomCase = 0;

describe('fuzzing', () => {
  it('team definitions: compile or a typed validation error', async () => {
    const base = faultTeamDefinition(3) as unknown as Json;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 6 }), weird, async (path, replacement) => {
        const error = await typedOrFine(() => compileGraph(teamGraphType, mutateJson(base, path, replacement) as TeamDefinition));
        counted('definitions', error === null ? 'accepted' : 'typed');
      }),
      { numRuns: RUNS.definitions },
    );
  });

  it('turn results: recorded as a completion or RESULT_INVALID, never thrown', async () => {
    const graph = faultGraph(2);
    await fc.assert(
      fc.asyncProperty(fc.oneof(weird, fc.record({ summary: weird, posts: fc.array(fc.record({ roomId: weird, text: weird, mentions: fc.array(weird, { maxLength: 3 }) }), { maxLength: 3 }) })), async (result) => {
        const storage = createMemoryStorage();
        const bindings = { ...nodes, ana: () => result };
        const outcome = await (await createGraphExecutor({ runId: FAULT_RUN_ID, graph, storage, nodes: bindings })).run();
        expect(['complete', 'fail']).toContain(outcome.kind);
        // A refused result is recorded as the run's typed failure (RESULT_INVALID), not thrown.
        counted('results', outcome.kind === 'complete' ? 'recovered' : 'typed');
      }),
      { numRuns: RUNS.results },
    );
  });

  it('stored events: a tampered record replays or fails typed, and a failed replay writes nothing', async () => {
    const record = (await completedRecord()).map(asNew);
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(fc.nat(), { maxLength: 5 }), weird, fc.constantFrom('payload', 'type', 'version', 'drop', 'swap'), async (at, path, replacement, how) => {
        const index = at % record.length;
        const events = [...record];
        const target = events[index]!;
        if (how === 'drop') events.splice(index, 1);
        else if (how === 'swap' && index + 1 < events.length) [events[index], events[index + 1]] = [events[index + 1]!, target];
        else if (how === 'payload') events[index] = { ...target, payload: mutateJson(target.payload, path, replacement) as Json };
        else if (how === 'type') events[index] = { ...target, type: typeof replacement === 'string' ? replacement : 'graph:node-exploded' };
        else events[index] = { ...target, version: typeof replacement === 'number' ? replacement : 2 };
        const storage = createMemoryStorage();
        const stored = await typedOrFine(() => storage.append(FAULT_RUN_ID, 0, events));
        if (stored !== null) {
          // Storage refused it, typed, and wrote nothing.
          expect(await storage.head(FAULT_RUN_ID)).toBe(0);
          counted('records', 'typed');
          return;
        }
        const head = await storage.head(FAULT_RUN_ID);
        const replay = await typedOrFine(async () => (await createGraphExecutor({ runId: FAULT_RUN_ID, graph: faultGraph(TURNS), storage, nodes })).run());
        if (replay !== null) expect(await storage.head(FAULT_RUN_ID)).toBe(head);
        const directory = join(roomsDirectory(), `case-${roomCase++}`);
        try {
          await typedOrFine(() => projectTeamRooms({ storage, runId: FAULT_RUN_ID, directory }));
        } finally {
          await rm(directory, { recursive: true, force: true });
        }
        counted('records', replay === null ? 'recovered' : 'typed');
      }),
      { numRuns: RUNS.records },
    );
  });
});
