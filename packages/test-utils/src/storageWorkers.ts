// The child-process side of the storage crash and race harnesses (`@roundtable/test-utils/workers`):
// each adapter's fixture opens its storage and hands it to one of these. Nothing here imports
// vitest or a database driver, so a fixture starts quickly.
import type { TestEvent } from './storageEvents.js';
import { TEST_TIMESTAMP } from './storageEvents.js';

/** What the workers need of a storage: `head`, `append` and `close` as in `RunStorage`. */
export interface AppendingStorage {
  head(streamId: string): Promise<number>;
  append(streamId: string, expectedRevision: number, events: readonly TestEvent[]): Promise<number>;
  close(): Promise<void>;
}

/** A race command, sent by the parent over IPC. */
export type RaceCommand =
  | { readonly type: 'head'; readonly streamId: string }
  | { readonly type: 'append'; readonly streamId: string; readonly expectedRevision: number; readonly eventId: string }
  | { readonly type: 'free-for-all'; readonly streamId: string; readonly count: number }
  | { readonly type: 'close' };

function send(message: unknown): void {
  process.send?.(message);
}

/** An error's `code` (a RoundtableError's stable code), or its text. */
export function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
}

/** Where `appendAtHead` appended: the head it expected, the head `append` returned, and the conflicts met before. */
export interface AppendedAtHead {
  readonly expected: number;
  readonly head: number;
  readonly conflicts: number;
}

/** Appends `events` at the stream's head, reading the head again after each REVISION_CONFLICT. */
export async function appendAtHead(storage: AppendingStorage, streamId: string, events: readonly TestEvent[]): Promise<AppendedAtHead> {
  for (let conflicts = 0; ; conflicts++) {
    const expected = await storage.head(streamId);
    try {
      return { expected, head: await storage.append(streamId, expected, events), conflicts };
    } catch (error) {
      if (errorCode(error) !== 'REVISION_CONFLICT') throw error;
    }
  }
}

/**
 * Serves the cross-process race (see `raceTwoProcesses`) over IPC; sends `{ type: 'ready' }`.
 *   { type: 'head', streamId } → { type: 'head', head } or { type: 'head', code }
 *   { type: 'append', streamId, expectedRevision, eventId } → { type: 'result', eventId, head } or { type: 'result', eventId, code }
 *   { type: 'free-for-all', streamId, count } appends `count` events, retrying conflicts → { type: 'done', conflicts }
 *   { type: 'close' } closes the storage and the IPC channel.
 */
export function serveRaceCommands(storage: AppendingStorage, name: string): void {
  const event = (eventId: string): TestEvent => ({ eventId, type: 'test:race', version: 1, timestamp: TEST_TIMESTAMP, correlationId: name, causationId: null, payload: { by: name } });
  const appendOnce = async ({ streamId, expectedRevision, eventId }: { streamId: string; expectedRevision: number; eventId: string }) => {
    try {
      const head = await storage.append(streamId, expectedRevision, [event(eventId)]);
      send({ type: 'result', eventId, head });
    } catch (error) {
      send({ type: 'result', eventId, code: errorCode(error) });
    }
  };
  const readHead = async ({ streamId }: { streamId: string }) => {
    try {
      send({ type: 'head', head: await storage.head(streamId) });
    } catch (error) {
      send({ type: 'head', code: errorCode(error) });
    }
  };
  const freeForAll = async ({ streamId, count }: { streamId: string; count: number }) => {
    let conflicts = 0;
    for (let i = 0; i < count; i++) conflicts += (await appendAtHead(storage, streamId, [event(`${name}-free-${i}`)])).conflicts;
    send({ type: 'done', conflicts });
  };
  process.on('message', (message: RaceCommand) => {
    if (message.type === 'head') void readHead(message);
    else if (message.type === 'append') void appendOnce(message);
    else if (message.type === 'free-for-all') void freeForAll(message);
    else void storage.close().then(() => process.disconnect());
  });
  send({ type: 'ready' });
}

export interface CrashWriterOptions {
  /** Names the writer's batches (`<name>-<seq>`). */
  readonly name: string;
  /** The streams it appends to, in turn. */
  readonly streamIds: readonly string[];
  /** Each event carries `fillerBytes × (index + 1)` bytes of filler, so appends take real time. */
  readonly fillerBytes: number;
}

/**
 * The writer of the crash harness (see `killWritersMidAppend`): sends `{ type: 'ready' }`, then
 * appends batches of 1–5 events until it is killed. Each event's payload names its batch, its
 * index and the batch size, so a reader can tell whole batches from torn ones. After each commit
 * it reports `{ type: 'committed', streamId, batch }` (a report may be lost to the kill; a
 * commit that was reported must survive it).
 */
export async function appendBatchesUntilKilled(storage: AppendingStorage, { name, streamIds, fillerBytes }: CrashWriterOptions): Promise<never> {
  send({ type: 'ready' });
  for (let seq = 0; ; seq++) {
    const streamId = streamIds[seq % streamIds.length] ?? 'crash';
    const size = 1 + (seq % 5);
    const batch = `${name}-${seq}`;
    const events = Array.from({ length: size }, (_, index) => ({
      eventId: `${batch}-${index}`,
      type: 'test:crash',
      version: 1,
      timestamp: TEST_TIMESTAMP,
      correlationId: name,
      causationId: null,
      payload: { batch, index, size, filler: 'x'.repeat(fillerBytes * (index + 1)) },
    }));
    await appendAtHead(storage, streamId, events);
    send({ type: 'committed', streamId, batch });
  }
}
