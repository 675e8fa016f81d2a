import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoundtableError } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition } from '@roundtable/graph';
import { projectTeamRooms } from '@roundtable/rooms';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { NewEvent, StoredEvent } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { FAULT_RUN_ID, MEMBERS, faultGraph, faultMember, faultTeamDefinition } from './faultTeam.js';
import { FULL, faultCounts, reportFaults } from './faultReport.js';

// Malformed definitions, results, events and files must end in a typed Roundtable error (or
// be accepted), never an uncaught TypeError, a hang, or a partial write.

const RUNS = FULL ? 1_000 : 150;
afterAll(() => reportFaults('fuzz'));

/** Runs `work`; anything thrown must be a RoundtableError. */
async function typedOrFine(work: () => unknown): Promise<unknown> {
  try {
    await work();
    return null;
  } catch (error) {
    if (!isRoundtableError(error)) throw new Error(`untyped failure: ${String(error)}`, { cause: error });
    faultCounts.typedErrors++;
    return error;
  } finally {
    faultCounts.fuzzCases++;
  }
}

const TURNS = 4;
const nodes = Object.fromEntries(MEMBERS.map((id) => [id, faultMember(id, TURNS)]));

async function completedRecord(): Promise<StoredEvent[]> {
  const storage = createMemoryStorage();
  await (await createGraphExecutor({ runId: FAULT_RUN_ID, graph: faultGraph(TURNS), storage, nodes })).run();
  const events: StoredEvent[] = [];
  for await (const event of storage.read(FAULT_RUN_ID)) events.push(event);
  return events;
}

function asNew(event: StoredEvent): NewEvent {
  const { eventId, type, version, timestamp, correlationId, causationId, payload } = event;
  return { eventId, type, version, timestamp, correlationId, causationId, payload };
}

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

describe('fuzzing', () => {
  it('team definitions: compile or a typed validation error', async () => {
    const base = faultTeamDefinition(3) as unknown as Json;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 6 }), weird, async (path, replacement) => {
        await typedOrFine(() => compileGraph(teamGraphType, mutateJson(base, path, replacement) as TeamDefinition));
      }),
      { numRuns: RUNS },
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
        faultCounts.fuzzCases++;
      }),
      { numRuns: RUNS },
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
        if (stored !== null) return; // storage refused it, typed, and wrote nothing
        const head = await storage.head(FAULT_RUN_ID);
        const replay = await typedOrFine(async () => (await createGraphExecutor({ runId: FAULT_RUN_ID, graph: faultGraph(TURNS), storage, nodes })).run());
        if (replay !== null) expect(await storage.head(FAULT_RUN_ID)).toBe(head);
        const directory = await mkdtemp(join(tmpdir(), 'roundtable-fuzz-rooms-'));
        try {
          await typedOrFine(() => projectTeamRooms({ storage, runId: FAULT_RUN_ID, directory }));
        } finally {
          await rm(directory, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('record files: damaged bytes fail closed with a typed error or read back whole', async () => {
    const record = (await completedRecord()).map(asNew);
    const scratch = await mkdtemp(join(tmpdir(), 'roundtable-fuzz-files-'));
    try {
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.constantFrom('flip', 'truncate', 'append'), async (fileAt, byteAt, mask, how) => {
          const directory = await mkdtemp(join(scratch, 'case-'));
          const writer = createFsStorage({ directory });
          let head = 0;
          for (const event of record) head = await writer.append(FAULT_RUN_ID, head, [event]);
          await writer.close();
          const streamDir = join(directory, 'default', FAULT_RUN_ID);
          const files = (await readdir(streamDir)).filter((name) => name.endsWith('.batch')).sort();
          const file = join(streamDir, files[fileAt % files.length]!);
          const bytes = await readFile(file);
          const offset = byteAt % bytes.length;
          if (how === 'flip') bytes[offset] = bytes[offset]! ^ mask;
          await writeFile(file, how === 'truncate' ? bytes.subarray(0, offset) : how === 'append' ? Buffer.concat([bytes, Buffer.from([mask])]) : bytes);
          faultCounts.damagedFiles++;
          const reader = createFsStorage({ directory });
          const error = await typedOrFine(async () => {
            for await (const _ of reader.read(FAULT_RUN_ID)) void _;
          });
          expect(error, 'damage must be detected').not.toBeNull();
          expect((error as { code: string }).code).toBe('CORRUPT_EVENT_STREAM');
          await reader.close();
          await rm(directory, { recursive: true, force: true });
        }),
        { numRuns: FULL ? 300 : 40 },
      );
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
