import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Json } from '@roundtable/core';
import type { EventRead, NewEvent, RunStorage, StoredEvent } from '@roundtable/storage';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { rejection as rejectionOf } from '@roundtable/test-utils';
import {
  GraphEventTypes,
  RunRecordFolder,
  compileStoredDefinition,
  foldStream,
  isGraphExecutionError,
  openStoredRun,
  readRunDefinition,
  runStartedPayload,
  storedGraphMismatch,
  teamGraphType,
} from './index.js';
import type { CompiledGraph, GraphType, RecordReader, TeamState } from './index.js';
import { compileTeam, team } from './__fixtures__/teamFixtures.js';

const RUN = 'run-1';
/** a and b in room `all`, dispatched together; each mentions the other on its first turn, so each has two turns. */
const graph = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }], globalConcurrency: 2, maxTurnsPerMember: 2 }));

let ids = 0;
function newEvent(type: string, payload: Json): NewEvent {
  ids++;
  return { eventId: `id-${ids}`, type, version: 1, timestamp: '2026-12-01T10:00:00.000Z', correlationId: RUN, causationId: null, payload };
}

/**
 * The appends of a whole run, as an executor would make them: run-started, then per batch the
 * dispatches in one append and each attempt's start and completion in one append each.
 */
function runAppends(compiled: CompiledGraph<TeamState>, hostEvents = false): NewEvent[][] {
  const folder = new RunRecordFolder(compiled);
  const appends: NewEvent[][] = [];
  const add = (events: NewEvent[]) => {
    for (const event of events) folder.apply({ ...event, revision: folder.revision + 1 });
    appends.push(events);
  };
  add([newEvent(GraphEventTypes.RUN_STARTED, runStartedPayload(compiled) as unknown as Json)]);
  for (;;) {
    const commands = compiled.decide(folder.state);
    if (commands[0]?.kind !== 'dispatch') return appends;
    const batch = commands.flatMap((command) => (command.kind === 'dispatch' ? [command] : []));
    add(batch.map(({ nodeId, position }) => newEvent(GraphEventTypes.NODE_DISPATCHED, { nodeId, position })));
    for (const { nodeId, position } of batch) {
      const other = nodeId === 'a' ? 'b' : 'a';
      const first = position.endsWith('/1');
      const result = { summary: `${position} done`, posts: first ? [{ roomId: 'all', text: `over to ${other}`, mentions: [other] }] : [] };
      add([newEvent(GraphEventTypes.NODE_ATTEMPT_STARTED, { nodeId, position, attempt: 1, retrySafe: false }), newEvent(GraphEventTypes.NODE_COMPLETED, { nodeId, position, result })]);
      if (hostEvents) add([newEvent('host:note', { after: position })]);
    }
  }
}

async function storedRun(appends: readonly NewEvent[][], storage: RunStorage = createMemoryStorage()): Promise<RunStorage> {
  for (const events of appends) await storage.append(RUN, await storage.head(RUN), events);
  return storage;
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code: string }> {
  return (await rejectionOf(promise)) as Error & { code: string };
}

describe('foldStream(storage, runId, { graph } | { folder }) over a real memory storage', () => {
  it('folds a whole run into a new folder, exactly as applying each stored event does', async () => {
    const storage = await storedRun(runAppends(graph, true));
    const folder = await foldStream(storage, RUN, { graph });
    const byHand = new RunRecordFolder(graph);
    for await (const event of storage.read(RUN)) byHand.apply(event);
    expect(folder.revision).toBe(await storage.head(RUN));
    expect(folder.state).toEqual(byHand.state);
    expect(graph.decide(folder.state)).toEqual([expect.objectContaining({ kind: 'complete' })]);
    expect(folder.unfinishedPositions()).toEqual([]);
    expect(folder.definition).toEqual(runStartedPayload(graph).definition);
  });

  it('continues a folder from its revision, reading only what is new', async () => {
    const appends = runAppends(graph);
    const backing = createMemoryBacking();
    const storage = await storedRun(appends.slice(0, 2), createMemoryStorage({ backing }));
    const seen: number[] = [];
    const onEvent = (event: StoredEvent) => void seen.push(event.revision);
    const folder = await foldStream(storage, RUN, { graph, onEvent });
    expect(folder.revision).toBe(3);
    expect(folder.unfinishedPositions()).toEqual(['team/a/1', 'team/b/1']);
    // Another instance over the same backing appends the rest.
    await storedRun(appends.slice(2), createMemoryStorage({ backing }));
    expect(await foldStream(storage, RUN, { folder, onEvent })).toBe(folder);
    expect(seen).toEqual(Array.from({ length: await storage.head(RUN) }, (_, index) => index + 1));
    expect(folder.state).toEqual((await foldStream(storage, RUN, { graph })).state);
    // Nothing new: nothing read, nothing changed.
    const state = folder.state;
    await foldStream(storage, RUN, { folder, onEvent });
    expect(folder.state).toBe(state);
    expect(seen).toHaveLength(folder.revision);
  });

  it('gives the same folder however the reads are split (property)', async () => {
    const appends = runAppends(graph, true);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: appends.length, maxLength: appends.length }), async (foldAfter) => {
        const storage = createMemoryStorage();
        const folder = new RunRecordFolder(graph);
        const seen: number[] = [];
        for (const [index, events] of appends.entries()) {
          await storage.append(RUN, await storage.head(RUN), events);
          if (foldAfter[index]) await foldStream(storage, RUN, { folder, onEvent: (event) => void seen.push(event.revision) });
        }
        await foldStream(storage, RUN, { folder, onEvent: (event) => void seen.push(event.revision) });
        const whole = await foldStream(storage, RUN, { graph });
        expect(seen).toEqual(Array.from({ length: whole.revision }, (_, index) => index + 1));
        expect(folder.revision).toBe(whole.revision);
        expect(folder.state).toEqual(whole.state);
        expect(folder.openAttempts()).toEqual(whole.openAttempts());
      }),
      { numRuns: 40 },
    );
  });

  it('an empty run gives a folder at revision 0', async () => {
    const folder = await foldStream(createMemoryStorage(), RUN, { graph });
    expect(folder.revision).toBe(0);
    expect(folder.definition).toBeNull();
    expect(folder.state).toEqual(graph.initialState());
  });

  it('refuses a record that does not fit (INVALID_EVENT), and onEvent sees only events the fold accepted', async () => {
    const appends = runAppends(graph);
    const [started, dispatches] = appends as [NewEvent[], NewEvent[]];
    const storage = await storedRun([started, [dispatches[1]!, dispatches[0]!]]);
    const seen: string[] = [];
    const error = await rejection(foldStream(storage, RUN, { graph, onEvent: (event) => void seen.push(event.type) }));
    expect(isGraphExecutionError(error, 'INVALID_EVENT')).toBe(true);
    expect(error.message).toMatch(/at revision 2: decide dispatched a at team\/a\/1 here/);
    expect(seen).toEqual([GraphEventTypes.RUN_STARTED]);
  });

  it('refuses a read that ends inside a dispatch batch (INVALID_EVENT)', async () => {
    const [started, dispatches] = runAppends(graph) as [NewEvent[], NewEvent[]];
    const storage = await storedRun([started, [dispatches[0]!]]);
    const error = await rejection(foldStream(storage, RUN, { graph }));
    expect(isGraphExecutionError(error, 'INVALID_EVENT')).toBe(true);
    expect(error.message).toMatch(/dispatch batch ending at revision 2 is shorter than decide returned/);
  });

  it('refuses a run of another graph (STORED_GRAPH_MISMATCH)', async () => {
    const storage = await storedRun(runAppends(graph).slice(0, 1));
    const other = compileTeam(team({ members: [{ id: 'a' }, { id: 'b' }], globalConcurrency: 1, maxTurnsPerMember: 2 }));
    expect(isGraphExecutionError(await rejection(foldStream(storage, RUN, { graph: other })), 'STORED_GRAPH_MISMATCH')).toBe(true);
  });

  it('lets a storage failure through unchanged', async () => {
    const storage = createMemoryStorage();
    await storage.close();
    expect((await rejection(foldStream(storage, RUN, { graph }))).code).toBe('STORAGE_CLOSED');
  });

  it('refuses bad arguments with PROTOCOL before reading', async () => {
    const folder = new RunRecordFolder(graph);
    const storage = createMemoryStorage();
    for (const [reader, options] of [
      [null, { graph }],
      [{}, { graph }],
      [storage, undefined],
      [storage, {}],
      [storage, { graph, folder }],
      [storage, { folder: {} }],
      [storage, { graph: { kind: 'team' } }],
    ] as const) {
      const error = await rejection(foldStream(reader as never, RUN, options as never));
      expect(isGraphExecutionError(error, 'PROTOCOL'), String(error)).toBe(true);
    }
  });

  it('folds a read offering the port\'s synchronous fast path (EventRead.nextChunk) exactly as one offering only async iteration, in chunks or not', async () => {
    // A record longer than two chunks (1,024 events each): the run, then host events.
    const appends = runAppends(graph);
    for (let note = 0; note < 2100; note += 300) appends.push(Array.from({ length: 300 }, (_, index) => newEvent('host:note', { note: note + index })));
    const storage = await storedRun(appends);
    const head = await storage.head(RUN);
    expect(head).toBeGreaterThan(2048);
    const asyncOnly: RecordReader<StoredEvent> = {
      async *read(streamId, options) {
        yield* storage.read(streamId, options);
      },
    };
    let chunkCalls = 0;
    const chunkOnly: RecordReader<StoredEvent> = {
      read(streamId, options) {
        const events = storage.read(streamId, options);
        if (typeof events.nextChunk !== 'function') throw new Error('a memory read offers the fast path');
        const fastOnly: EventRead = {
          [Symbol.asyncIterator]: () => {
            throw new Error('the fast path was not taken');
          },
          nextChunk: (max) => {
            chunkCalls++;
            return events.nextChunk!(max);
          },
        };
        return fastOnly;
      },
    };
    const seenSlow: number[] = [];
    const seenFast: number[] = [];
    const slow = await foldStream(asyncOnly, RUN, { graph, onEvent: (event) => void seenSlow.push(event.revision) });
    const fast = await foldStream(chunkOnly, RUN, { graph, onEvent: (event) => void seenFast.push(event.revision) });
    // One call more than the fold's chunks: the run's first event is taken alone to learn whether it is a fork (runReader).
    expect(chunkCalls).toBe(Math.ceil(head / 1024) + 2);
    expect(seenFast).toEqual(seenSlow);
    expect(seenFast).toEqual(Array.from({ length: head }, (_, index) => index + 1));
    expect(fast.revision).toBe(head);
    expect(fast.state).toEqual(slow.state);
    expect(fast.openAttempts()).toEqual(slow.openAttempts());
    // Continuing a folder through the fast path reads only what is new: nothing here.
    expect((await foldStream(chunkOnly, RUN, { folder: fast })).revision).toBe(head);
  });

  it('stops a chunked fold at the first event that does not fit, with the folder at the event before it', async () => {
    const storage = await storedRun(runAppends(graph));
    const head = await storage.head(RUN);
    // The second dispatch is written again at the end: refused however the read is taken.
    const events: StoredEvent[] = [];
    for await (const event of storage.read(RUN)) events.push(event);
    const repeated = events.find((event) => event.type === GraphEventTypes.NODE_DISPATCHED)!;
    const bad = createMemoryStorage();
    await storedRun(runAppends(graph), bad);
    await bad.append(RUN, head, [newEvent(GraphEventTypes.NODE_DISPATCHED, repeated.payload)]);
    const folder = new RunRecordFolder(graph);
    const error = await rejection(foldStream(bad, RUN, { folder }));
    expect(isGraphExecutionError(error, 'INVALID_EVENT'), String(error)).toBe(true);
    expect(folder.revision).toBe(head);
  });

  it('takes any RunStorage, by its read method alone', () => {
    const reader: RecordReader<StoredEvent> = createMemoryStorage();
    expect(typeof reader.read).toBe('function');
  });
});

describe('readRunDefinition(storage, runId)', () => {
  it('reads the definition from the first event, or null for an empty run', async () => {
    expect(await readRunDefinition(createMemoryStorage(), RUN)).toBeNull();
    expect(await readRunDefinition(await storedRun(runAppends(graph)), RUN)).toEqual(runStartedPayload(graph).definition);
  });

  it('refuses a first event that is not graph:run-started (INVALID_EVENT)', async () => {
    const storage = await storedRun([[newEvent('host:note', null)]]);
    expect(isGraphExecutionError(await rejection(readRunDefinition(storage, RUN)), 'INVALID_EVENT')).toBe(true);
  });
});

describe('openStoredRun(storage, runId, { types }): a stored run with its stored definition', () => {
  const types = [teamGraphType as unknown as GraphType<unknown>];

  it('compiles the stored definition with its type and folds the whole record', async () => {
    const storage = await storedRun(runAppends(graph));
    const seen: number[] = [];
    const run = await openStoredRun(storage, RUN, { types, onEvent: (event) => seen.push(event.revision) });
    expect(run.stored).toEqual(runStartedPayload(graph).definition);
    expect(run.graph.definition.digest).toBe(graph.definition.digest);
    expect(run.folder.revision).toBe(await storage.head(RUN));
    expect(seen).toEqual(Array.from({ length: run.folder.revision }, (_, index) => index + 1));
  });

  it('is RUN_NOT_FOUND for a run with no events and UNKNOWN_GRAPH_TYPE for a type it was not given', async () => {
    expect(isGraphExecutionError(await rejection(openStoredRun(createMemoryStorage(), RUN, { types })), 'RUN_NOT_FOUND')).toBe(true);
    const storage = await storedRun(runAppends(graph));
    const unknown = await rejection(openStoredRun(storage, RUN, { types: [] }));
    expect(unknown).toMatchObject({ code: 'UNKNOWN_GRAPH_TYPE', details: { runId: RUN, kind: 'team', typeVersion: 1 } });
    expect(() => compileStoredDefinition(runStartedPayload(graph).definition, [], RUN)).toThrow(/not among the types given/);
  });

  it('storedGraphMismatch names a stored definition that is not the graph given', () => {
    const other = compileTeam(team({ members: [{ id: 'a' }], maxTurnsPerMember: 1 }));
    expect(storedGraphMismatch(runStartedPayload(graph).definition, graph)).toBeNull();
    expect(storedGraphMismatch(runStartedPayload(graph).definition, other)).toMatchObject({ code: 'STORED_GRAPH_MISMATCH' });
  });
});
