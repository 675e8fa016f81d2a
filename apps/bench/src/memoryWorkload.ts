// Where a long in-memory run's memory goes: the ping-pong run alone (no replay, no projection),
// sampled every tenth of the run, then the live heap once the run is over and collected. The
// `discard` store checks every append as an adapter does (prepareAppend) and keeps nothing, so
// its figures are the executor's own state and garbage; `memory` adds the adapter's record.
import { getHeapStatistics } from 'node:v8';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { prepareAppend, resolveStorageOptions } from '@roundtable/storage/adapter';
import type { RunStorage } from '@roundtable/storage';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { pingPongTeam } from './pingPongTeam.js';
import { pingPongMembers } from './workloads.js';

export type MemoryStoreName = 'memory' | 'discard';

export interface MemorySample {
  /** Turns started so far. */
  turns: number;
  rssMiB: number;
  heapUsedMiB: number;
}

export interface MemoryReport {
  turns: number;
  usPerTurn: number;
  samples: MemorySample[];
  /** RSS just before the run (Node and the loaded modules: the bench loads every workload's), after a full collection. */
  rssBeforeRunMiB: number;
  /** The process's peak RSS when the run returned (before anything else ran). */
  runPeakRssMiB: number;
  /** Heap in use when the run returned, garbage included. */
  heapUsedAtEndMiB: number;
  /** Heap in use after a full collection, with the executor and the record still reachable. */
  liveHeapMiB: number;
}

/** A store that checks each append as every adapter does and keeps only the head. */
function discardingStorage(): RunStorage {
  const config = resolveStorageOptions({});
  let head = 0;
  return {
    identity: Object.freeze({ adapter: 'bench-discard', version: '0.0.0', namespace: config.namespace, location: 'nowhere' }),
    head: () => Promise.resolve(head),
    read: async function* () {},
    append: async (streamId, expectedRevision, events) => {
      const prepared = prepareAppend(config, streamId, expectedRevision, events);
      await Promise.resolve();
      head = prepared.nextHead;
      return head;
    },
    streams: async function* () {},
    close: () => Promise.resolve(),
  };
}

const MiB = 1024 * 1024;

export async function benchMemory(store: MemoryStoreName, turns: number): Promise<MemoryReport> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('The memory workload needs node --expose-gc.');
  const samples: MemorySample[] = [];
  const every = Math.max(1, Math.floor(turns / 10));
  let started = 0;
  const members = pingPongMembers(turns);
  // Sampled from inside the run: the in-memory run never yields to timers.
  const nodes = Object.fromEntries(
    Object.entries(members).map(([id, member]) => [
      id,
      (ctx: { input: unknown; position: string }) => {
        if (++started % every === 0) {
          const usage = process.memoryUsage();
          samples.push({ turns: started, rssMiB: usage.rss / MiB, heapUsedMiB: usage.heapUsed / MiB });
        }
        return member(ctx);
      },
    ]),
  );
  const storage = store === 'memory' ? createMemoryStorage() : discardingStorage();
  const graph = compileGraph(teamGraphType, pingPongTeam(turns));
  const executor = await createGraphExecutor({ runId: 'bench', graph, storage, nodes });
  collect();
  const rssBeforeRunMiB = process.memoryUsage().rss / MiB;
  const begun = performance.now();
  const result = await executor.run();
  const ms = performance.now() - begun;
  const runPeakRssMiB = process.resourceUsage().maxRSS / 1024;
  const heapUsedAtEndMiB = process.memoryUsage().heapUsed / MiB;
  if (result.kind !== 'complete') throw new Error(`The workload ended with ${JSON.stringify(result).slice(0, 300)}`);
  collect();
  const liveHeapMiB = getHeapStatistics().used_heap_size / MiB;
  // Both stay reachable until the live heap is measured.
  if (executor.revision !== (await storage.head('bench'))) throw new Error('The executor and its store disagree on the head.');
  return { turns, usPerTurn: (ms * 1000) / turns, samples, rssBeforeRunMiB, runPeakRssMiB, heapUsedAtEndMiB, liveHeapMiB };
}
