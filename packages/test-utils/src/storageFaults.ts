// The parent side of the storage crash and race harnesses: one body for every adapter, the
// adapter given as parameters (how to fork its fixture, how to open it here).
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { exited, messageOfType, nextMessage } from './childProcessFixtures.js';
import { readAll } from './storageEvents.js';
import type { TestEvent } from './storageEvents.js';
import type { AppendingStorage } from './storageWorkers.js';
import { appendAtHead } from './storageWorkers.js';

/** What the harnesses need of a storage: `RunStorage`'s `head`, `append`, `read` and `close`. */
export interface HarnessStorage extends AppendingStorage {
  read(streamId: string, options?: { after?: number }): AsyncIterable<{ readonly eventId: string; readonly revision: number; readonly payload: unknown }>;
}

interface BatchPayload {
  readonly batch: string;
  readonly index: number;
  readonly size: number;
}

/** Runs `work` after every earlier call's work has finished. */
function serialized(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };
}

/**
 * Reads each stream from where the last check stopped (always a batch boundary) and checks it
 * holds whole batches only, each once; records the batches seen.
 */
async function checkWholeBatches(storage: HarnessStorage, streams: readonly string[], checkedUpTo: Map<string, number>, seen: Map<string, string>): Promise<void> {
  for (const streamId of streams) {
    const events = await readAll(storage, streamId, checkedUpTo.get(streamId) ?? 0);
    for (let i = 0; i < events.length; ) {
      const { batch, size } = events[i]!.payload as BatchPayload;
      expect(seen.has(batch), `batch ${batch} appears twice`).toBe(false);
      seen.set(batch, streamId);
      const parts = events.slice(i, i + size).map((event) => event.payload as BatchPayload);
      expect(parts.map((part) => `${part.batch}#${part.index}`), `batch ${batch} is torn`).toEqual(Array.from({ length: size }, (_, index) => `${batch}#${index}`));
      i += size;
    }
    const last = events.at(-1);
    if (last) checkedUpTo.set(streamId, last.revision);
  }
}

/** Fails (once, with the first miss) unless every acknowledged batch was seen in its stream. */
function expectAllSeen(acknowledged: Iterable<[string, string]>, seen: Map<string, string>, what: string): void {
  for (const [batch, streamId] of acknowledged) {
    if (seen.get(batch) !== streamId) expect.fail(`${what}: batch ${batch} of ${streamId} is ${seen.has(batch) ? `in ${seen.get(batch)}` : 'missing'}`);
  }
}

export interface KillWritersOptions {
  /** How many writers to kill. */
  readonly kills: number;
  /** Numbers the writers from here (`w<round>`), so several calls on one store never share a batch name. Default 0. */
  readonly firstRound?: number;
  /**
   * Forks one writer (a fixture that calls `appendBatchesUntilKilled` with these stream ids,
   * comma-separated, and name `w<round>`); the harness kills it.
   */
  fork(name: string, streamList: string, round: number): ChildProcess;
  /** The children list of the test file (its `afterEach` kills what is left with `killAll`). */
  readonly children: ChildProcess[];
  /** Opens an instance in the test process; the harness closes what it opens. */
  open(): HarnessStorage;
  /** Check with a fresh instance after every kill (true), or with one instance opened at the start. */
  readonly freshInstancePerCheck: boolean;
  /**
   * How many commits writer `round` must report before it is killed (0: as soon as it is ready).
   * Progress, not time, says how far a writer got before its kill, so a loaded machine only
   * takes longer to get there: the writers of a call acknowledge at least the sum of these.
   */
  commitsBeforeKill(round: number): number;
  /** The kill then comes a random 0 to `jitterMs` ms later, so it lands at any point of the append in flight. */
  readonly jitterMs: number;
}

type Committed = { type: 'committed'; batch: string; streamId: string };

const STREAMS = ['crash-a', 'crash-b', 'crash-c', 'crash-shared'];

/**
 * The crash harness: three writers at a time on one store, each killed at a random moment
 * mid-append (SIGKILL) and replaced, until `kills` kills. Each writer has a stream of its own and
 * shares one, so kills land in the middle of contended appends too. After each kill an instance
 * in this process checks what is new (every batch whole, each once, every acknowledged batch
 * there) and appends; at the end a fresh instance reads everything from the start and must see
 * the same batches. Each writer is killed once it has reported `commitsBeforeKill(round)` commits,
 * after a random jitter. Returns the number of acknowledged batches.
 */
export async function killWritersMidAppend(options: KillWritersOptions): Promise<number> {
  const { kills, firstRound = 0, children, jitterMs } = options;
  const acknowledged = new Map<string, string>();
  // Acknowledged since the last check: a batch, once seen, stays seen (reads only grow).
  let unchecked: [string, string][] = [];
  const seen = new Map<string, string>();
  const checkedUpTo = new Map<string, number>();
  const oneCheckAtATime = serialized();
  const shared = options.freshInstancePerCheck ? undefined : options.open();
  let started = 0;
  let killed = 0;

  // After a kill, an instance checks every stream (while the other writers keep going) and appends.
  async function checkAfterKill(round: number): Promise<void> {
    const mustBeThere = unchecked;
    unchecked = [];
    const storage = shared ?? options.open();
    try {
      await checkWholeBatches(storage, STREAMS, checkedUpTo, seen);
      expectAllSeen(mustBeThere, seen, 'an acknowledged batch was lost');
      const streamId = STREAMS[round % STREAMS.length]!;
      const batch = `check-${round}`;
      const event: TestEvent = { eventId: batch, type: 'test:crash', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: 'check', causationId: null, payload: { batch, index: 0, size: 1 } };
      const appended = await appendAtHead(storage, streamId, [event]);
      expect(appended.head).toBe(appended.expected + 1);
    } finally {
      if (shared === undefined) await storage.close();
    }
  }

  async function writerSlot(slot: number): Promise<void> {
    while (started < kills) {
      const round = firstRound + started++;
      const worker = options.fork(`w${round}`, `${STREAMS[slot]},crash-shared`, round);
      children.push(worker);
      const commitsBeforeKill = options.commitsBeforeKill(round);
      let commits = 0;
      // Both listen from the fork on, so no report is missed; either rejects if the writer exits.
      const ready = nextMessage(worker, messageOfType('ready'));
      const committedEnough = commitsBeforeKill === 0 ? undefined : nextMessage(worker, (message): message is Committed => messageOfType<Committed>('committed')(message) && ++commits === commitsBeforeKill);
      worker.on('message', (message: { type: string }) => {
        if (!messageOfType<Committed>('committed')(message)) return;
        acknowledged.set(message.batch, message.streamId);
        unchecked.push([message.batch, message.streamId]);
      });
      await Promise.all([ready, committedEnough]);
      await sleep(Math.random() * jitterMs);
      worker.kill('SIGKILL');
      // Only a kill may end a writer: an error would exit with a code instead.
      expect(await exited(worker)).toEqual({ code: null, signal: 'SIGKILL' });
      killed++;
      await oneCheckAtATime(() => checkAfterKill(round));
    }
  }

  try {
    await Promise.all([0, 1, 2].map(writerSlot));
    expect(killed).toBe(kills);
    if (shared !== undefined) await checkWholeBatches(shared, STREAMS, checkedUpTo, seen);
  } finally {
    await shared?.close();
  }

  // A last full read of every stream, from the start, by a fresh instance: the same batches.
  const fresh = options.open();
  try {
    if (shared === undefined) await checkWholeBatches(fresh, STREAMS, checkedUpTo, seen);
    const everything = new Map<string, string>();
    await checkWholeBatches(fresh, STREAMS, new Map(), everything);
    expect(everything.size).toBe(seen.size);
    expectAllSeen(seen, everything, 'the full read differs from the incremental ones');
    expectAllSeen(acknowledged, everything, 'an acknowledged batch is missing from the full read');
  } finally {
    await fresh.close();
  }
  return acknowledged.size;
}

export interface RaceOptions {
  /**
   * Rounds in which both processes read the head and then append at it. If one of them has won
   * no round by then, rounds go on until each has won one, up to RACE_ROUNDS_BOUND × `rounds`.
   */
  readonly rounds: number;
  /** Then each appends this many events as fast as it can, retrying conflicts. */
  readonly freeForAll: number;
  /** Forks one racer (a fixture that calls `serveRaceCommands` with this name). */
  fork(name: string): ChildProcess;
  /** The children list of the test file (its `afterEach` kills what is left with `killAll`). */
  readonly children: ChildProcess[];
  /** Opens an instance in the test process to read the result; the harness closes it. */
  open(): HarnessStorage;
}

type RaceHead = { type: 'head'; head?: number; code?: string };
type RaceResult = { type: 'result'; eventId: string; head?: number; code?: string };

/**
 * Which process wins a round is the machine's to decide, and a loaded one may favour one
 * process for a long stretch: the rounds go on past `rounds` until each has won one, and only
 * a race still one-sided after this many times `rounds` fails.
 */
const RACE_ROUNDS_BOUND = 4;

/**
 * The race harness: in each round both processes read the stream's head, and only once both
 * have read it does either append at it (exactly one wins each round, the other gets
 * REVISION_CONFLICT); the rounds go on until both have won some. Then both append `freeForAll`
 * events each, retrying conflicts; the stores hold exactly the winners and every event once,
 * with gap-free revisions.
 */
export async function raceTwoProcesses(options: RaceOptions): Promise<void> {
  const { rounds, freeForAll, children } = options;
  const names = ['alpha', 'beta'] as const;
  const workers = names.map((name) => options.fork(name));
  children.push(...workers);
  await Promise.all(workers.map((worker) => nextMessage(worker, messageOfType('ready'))));

  const winners: string[] = [];
  const wins = { alpha: 0, beta: 0 };
  let roundsWithOneWinner = 0;
  let roundsWithOneConflict = 0;
  let round = 0;
  for (; round < rounds || ((wins.alpha === 0 || wins.beta === 0) && round < RACE_ROUNDS_BOUND * rounds); round++) {
    // The barrier: both have read the head before either appends, so each appends at a head it
    // saw and the two really contend for one revision, however the machine schedules them.
    const reads = workers.map((worker) => nextMessage(worker, messageOfType<RaceHead>('head')));
    for (const worker of workers) worker.send({ type: 'head', streamId: 'race' });
    const heads = (await Promise.all(reads)).map((read) => read.head ?? read.code);
    expect(heads, `round ${round}: both processes read the head the last round left`).toEqual([round, round]);
    // Alternate who is told first, so neither has a head start every round.
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const replies = order.map((i) => nextMessage(workers[i]!, messageOfType<RaceResult>('result')));
    for (const i of order) workers[i]!.send({ type: 'append', streamId: 'race', expectedRevision: round, eventId: `${names[i]}-${round}` });
    const results = await Promise.all(replies);
    const won = results.filter((result) => result.head !== undefined);
    if (won.length === 1 && won[0]!.head === round + 1) roundsWithOneWinner++;
    if (results.filter((result) => result.code === 'REVISION_CONFLICT').length === 1) roundsWithOneConflict++;
    const winner = won[0]?.eventId ?? 'none';
    winners.push(winner);
    if (winner.startsWith('alpha')) wins.alpha++;
    else if (winner.startsWith('beta')) wins.beta++;
  }
  expect(roundsWithOneWinner).toBe(round);
  expect(roundsWithOneConflict).toBe(round);
  // Both really raced: each won a share of the rounds.
  expect(wins.alpha, `alpha won none of ${round} rounds: the race was one-sided`).toBeGreaterThan(0);
  expect(wins.beta, `beta won none of ${round} rounds: the race was one-sided`).toBeGreaterThan(0);

  // Then both append as fast as they can, retrying conflicts.
  const done = workers.map((worker) => nextMessage(worker, messageOfType<{ type: 'done'; conflicts: number }>('done')));
  for (const worker of workers) worker.send({ type: 'free-for-all', streamId: 'free', count: freeForAll });
  await Promise.all(done);
  for (const worker of workers) worker.send({ type: 'close' });
  await Promise.all(workers.map((worker) => exited(worker)));

  const storage = options.open();
  try {
    const race = await readAll(storage, 'race');
    expect(race.map((event) => event.eventId)).toEqual(winners);
    const free = await readAll(storage, 'free');
    expect(free.map((event) => event.revision)).toEqual(Array.from({ length: 2 * freeForAll }, (_, i) => i + 1));
    const expectedIds = names.flatMap((name) => Array.from({ length: freeForAll }, (_, i) => `${name}-free-${i}`));
    expect(new Set(free.map((event) => event.eventId))).toEqual(new Set(expectedIds));
  } finally {
    await storage.close();
  }
}
