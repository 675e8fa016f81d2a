/** A JSON value (the same shape as `Json` in @roundtable/core). */
export type TestJson = null | boolean | number | string | TestJson[] | { [key: string]: TestJson };

/** An event to append: the shape of `NewEvent` in @roundtable/storage, which this package does not depend on. */
export type TestEvent = Readonly<{ eventId: string; type: string; version: number; timestamp: string; correlationId: string; causationId: string | null; payload: TestJson }>;

/** The fixed timestamp of every test event, so records are byte-for-byte repeatable. */
export const TEST_TIMESTAMP = '2025-01-02T03:04:05.678Z';

/** An event of type `test:event` (or `fields.type`); the payload defaults to `{ eventId }`. */
export function newEvent(eventId: string, payload: TestJson = { eventId }, fields: Partial<Omit<TestEvent, 'eventId' | 'payload'>> = {}): TestEvent {
  return { eventId, type: 'test:event', version: 1, timestamp: TEST_TIMESTAMP, correlationId: 'test', causationId: null, payload, ...fields };
}

/** `count` events with ids `<prefix>-1` … `<prefix>-<count>`. */
export function newBatch(prefix: string, count: number): TestEvent[] {
  return Array.from({ length: count }, (_, i) => newEvent(`${prefix}-${i + 1}`));
}

/** What `readAll` needs of a storage: `read` as in `RunStorage`. */
export interface ReadableStorage<E> {
  read(streamId: string, options?: { after?: number }): AsyncIterable<E>;
}

/** Every event of a stream (after revision `after`, when given), in order. */
export async function readAll<E>(storage: ReadableStorage<E>, streamId: string, after?: number): Promise<E[]> {
  const events: E[] = [];
  for await (const event of storage.read(streamId, after === undefined ? {} : { after })) events.push(event);
  return events;
}

/**
 * The revisions of the first `count` events of `events` (a follow); then `stop()` is called
 * (a follow's `controller.abort()`) and the rest of the iteration is drained, so the follow ends cleanly.
 */
export async function revisionsUntil(events: AsyncIterable<{ readonly revision: number }>, count: number, stop: () => void): Promise<number[]> {
  const revisions: number[] = [];
  for await (const event of events) {
    revisions.push(event.revision);
    if (revisions.length === count) stop();
  }
  return revisions;
}
