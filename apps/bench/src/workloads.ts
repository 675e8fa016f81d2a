import { mkdtemp, rm, stat, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition, TeamDispatchInput, TeamTurnResult } from '@roundtable/graph';
import { projectTeamRooms } from '@roundtable/rooms';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { NewEvent, RunStorage } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { createSqliteStorage } from '@roundtable/storage-sqlite';
import { pingPongTeam } from './pingPongTeam.js';

export type AdapterName = 'memory' | 'fs' | 'sqlite-full' | 'sqlite-normal';
export const ADAPTERS: readonly AdapterName[] = ['memory', 'fs', 'sqlite-full', 'sqlite-normal'];

/** A place for a record that can be opened again (the replay uses a fresh instance). */
export interface BenchStore {
  open(): RunStorage;
  bytes(): Promise<number>;
  dispose(): Promise<void>;
}

async function directoryBytes(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

export async function createBenchStore(adapter: AdapterName): Promise<BenchStore> {
  if (adapter === 'memory') {
    const backing = createMemoryBacking();
    let bytes = 0;
    return {
      open: () => createMemoryStorage({ backing }),
      bytes: async () => {
        const storage = createMemoryStorage({ backing });
        for await (const { streamId } of storage.streams()) for await (const event of storage.read(streamId)) bytes += JSON.stringify(event).length;
        return bytes;
      },
      dispose: () => Promise.resolve(),
    };
  }
  const directory = await mkdtemp(join(tmpdir(), 'roundtable-bench-'));
  const open =
    adapter === 'fs'
      ? () => createFsStorage({ directory: join(directory, 'record') })
      : () => createSqliteStorage({ filename: join(directory, 'record.sqlite'), synchronous: adapter === 'sqlite-full' ? 'full' : 'normal' });
  return { open, bytes: () => directoryBytes(directory), dispose: () => rm(directory, { recursive: true, force: true }) };
}

const POST = 'x'.repeat(90);

export interface RunReport {
  turns: number;
  ms: number;
  turnsPerSecond: number;
  usPerTurn: number;
  events: number;
  recordBytes: number;
  replay: { ms: number; eventsPerSecond: number; appended: number };
  projection: { ms: number; files: number } | null;
}

/** Runs a team to completion, replays it with a fresh instance, and projects its rooms. */
async function runAndReplay(adapter: AdapterName, definition: TeamDefinition, nodes: Record<string, (ctx: { input: unknown; position: string }) => TeamTurnResult>, turns: number): Promise<RunReport> {
  const store = await createBenchStore(adapter);
  try {
    const graph = compileGraph(teamGraphType, definition);
    const storage = store.open();
    const started = performance.now();
    const result = await (await createGraphExecutor({ runId: 'bench', graph, storage, nodes })).run();
    const ms = performance.now() - started;
    if (result.kind !== 'complete') throw new Error(`The workload ended with ${JSON.stringify(result).slice(0, 300)}`);
    const events = await storage.head('bench');
    await storage.close();
    // Every turn writes a dispatch, an attempt start and an outcome after the run-started event.
    turns = (events - 1) / 3;

    const reopened = store.open();
    const replayStarted = performance.now();
    const replayed = await (await createGraphExecutor({ runId: 'bench', graph, storage: reopened, nodes })).run();
    const replayMs = performance.now() - replayStarted;
    if (JSON.stringify(replayed) !== JSON.stringify(result)) throw new Error('The replay returned a different result.');
    const appended = (await reopened.head('bench')) - events;

    let projection: RunReport['projection'] = null;
    const roomsDir = await mkdtemp(join(tmpdir(), 'roundtable-bench-rooms-'));
    try {
      const projectionStarted = performance.now();
      const projected = await projectTeamRooms({ storage: reopened, runId: 'bench', directory: roomsDir });
      projection = { ms: performance.now() - projectionStarted, files: projected.files.length };
    } finally {
      await rm(roomsDir, { recursive: true, force: true });
    }
    await reopened.close();
    return {
      turns,
      ms,
      turnsPerSecond: (turns / ms) * 1000,
      usPerTurn: (ms * 1000) / turns,
      events,
      recordBytes: await store.bytes(),
      replay: { ms: replayMs, eventsPerSecond: (events / replayMs) * 1000, appended },
      projection,
    };
  } finally {
    await store.dispose();
  }
}

/** The two members of the ping-pong team: one ~100-character post per turn mentioning the other, `pong` ending it after `turns`. */
export function pingPongMembers(turns: number): Record<string, (ctx: { input: unknown; position: string }) => TeamTurnResult> {
  const member = (self: string, other: string) => (ctx: { input: unknown; position: string }): TeamTurnResult => {
    const turn = Number(ctx.position.split('/').at(-1));
    const last = (ctx.input as TeamDispatchInput).messages.at(-1);
    if (self === 'pong' && turn * 2 >= turns) return { summary: `done after ${last?.id ?? 'nothing'}` };
    return { summary: `turn ${turn}`, posts: [{ roomId: 'table', text: `${self} ${turn} ${POST}`, mentions: [other] }] };
  };
  return { ping: member('ping', 'pong'), pong: member('pong', 'ping') };
}

/** Two members alternating, one ~100-character post per turn mentioning the other. */
export function benchPingPong(adapter: AdapterName, turns: number): Promise<RunReport> {
  return runAndReplay(adapter, pingPongTeam(turns), pingPongMembers(turns), turns);
}

/** A seeded PRNG (mulberry32), so every run of the fan-out mentions the same members. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 50 members, globalConcurrency 10, each turn mentioning two others chosen by a seeded PRNG. */
export function benchFanOut(adapter: AdapterName, turns: number): Promise<RunReport> {
  const members = Array.from({ length: 50 }, (_, i) => `m${String(i).padStart(2, '0')}`);
  const definition: TeamDefinition = {
    id: 'bench-fan-out',
    definitionVersion: 1,
    data: {
      task: 'Pass work around.',
      globalConcurrency: 10,
      maxTurnsPerMember: turns,
      communication: { rooms: [{ id: 'all', members }], tailMessages: 5 },
    },
    nodes: members.map((id, i) => ({ id, data: { role: 'worker', brief: 'Pass it on.', initialTurn: i < 10 } })),
    edges: [],
  };
  const random = prng(42);
  let budget = turns;
  const nodes = Object.fromEntries(
    members.map((self) => [
      self,
      (): TeamTurnResult => {
        budget--;
        if (budget < 0) return { summary: 'quiet' };
        const others = members.filter((member) => member !== self);
        const first = others[Math.floor(random() * others.length)]!;
        const rest = others.filter((member) => member !== first);
        const second = rest[Math.floor(random() * rest.length)]!;
        return { summary: 'passed', posts: [{ roomId: 'all', text: `${self} → ${first}, ${second} ${POST}`, mentions: [first, second] }] };
      },
    ]),
  );
  return runAndReplay(adapter, definition, nodes, turns);
}

export interface StorageReport {
  events: number;
  batchSize: number;
  /** Appends per second over the first and the last `window` appends. */
  firstWindow: { appendsPerSecond: number; usPerAppend: number };
  lastWindow: { appendsPerSecond: number; usPerAppend: number };
  readEventsPerSecond: number;
}

function event(index: number): NewEvent {
  return {
    eventId: `e-${index}`,
    type: 'bench:event',
    version: 1,
    timestamp: '2026-01-01T00:00:00.000Z',
    correlationId: 'bench',
    causationId: null,
    payload: { index, text: POST },
  };
}

/** Appends `events` events in batches of `batchSize`, timing the first and last windows. */
export async function benchStorage(adapter: AdapterName, events: number, batchSize: number): Promise<StorageReport> {
  const store = await createBenchStore(adapter);
  try {
    const storage = store.open();
    const appends = Math.ceil(events / batchSize);
    const window = Math.min(200, appends);
    const times: number[] = [];
    let head = 0;
    for (let i = 0; i < appends; i++) {
      const batch = Array.from({ length: batchSize }, (_, j) => event(head + j + 1));
      const started = performance.now();
      head = await storage.append('bench', head, batch);
      times.push(performance.now() - started);
    }
    const rate = (slice: number[]) => {
      const ms = slice.reduce((sum, t) => sum + t, 0);
      return { appendsPerSecond: (slice.length / ms) * 1000, usPerAppend: (ms * 1000) / slice.length };
    };
    await storage.close();
    const reader = store.open();
    const readStarted = performance.now();
    let read = 0;
    for await (const _ of reader.read('bench')) read++;
    const readMs = performance.now() - readStarted;
    await reader.close();
    return { events: read, batchSize, firstWindow: rate(times.slice(0, window)), lastWindow: rate(times.slice(-window)), readEventsPerSecond: (read / readMs) * 1000 };
  } finally {
    await store.dispose();
  }
}
