import { isStorageError } from '../errors.js';
import type { NewEvent, StoredEvent } from '../events.js';
import type { RunStorage } from '../storage.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { copyJson, newBatch, newEvent, storedEvents } from './fixtures.js';
import type { MutableEvent } from './fixtures.js';
import { check, checkConflictDetails, checkStream, describeError, expectOk, expectRejects, fail, show } from './harness.js';

interface Racer {
  readonly storage: RunStorage;
  readonly label: string;
  readonly batch: NewEvent[];
}

/**
 * Starts every racer's append at once on `expectedRevision` and checks that exactly one won,
 * that every other one got REVISION_CONFLICT naming the winner's head, and returns the winner.
 */
async function race(streamId: string, expectedRevision: number, racers: readonly Racer[], what: string): Promise<Racer> {
  const outcomes = await Promise.allSettled(racers.map((racer) => racer.storage.append(streamId, expectedRevision, racer.batch)));
  const winners = racers.filter((_, i) => outcomes[i]!.status === 'fulfilled');
  if (winners.length !== 1) {
    const summary = outcomes.map((outcome, i) => `${racers[i]!.label}: ${outcome.status === 'fulfilled' ? `won (${show(outcome.value)})` : describeError(outcome.reason)}`);
    fail(`${what}: ${racers.length} appends raced on revision ${expectedRevision}; exactly one must win, but ${winners.length} did (${summary.join('; ')}).`);
  }
  const winner = winners[0]!;
  const newHead = expectedRevision + winner.batch.length;
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') {
      check(outcome.value === newHead, `${what}: the winning append returned ${show(outcome.value)}, expected head ${newHead}.`);
      return;
    }
    const error: unknown = outcome.reason;
    if (!isStorageError(error, 'REVISION_CONFLICT')) fail(`${what}: the losing append by ${racers[i]!.label} should be REVISION_CONFLICT, got ${describeError(error)}.`);
    checkConflictDetails(error, expectedRevision, newHead, `${what}: the losing append by ${racers[i]!.label}`);
  });
  return winner;
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

const racingInstancesOneWins: ConformanceCaseDefinition = {
  name: 'racing-instances-one-wins',
  rule: 'Instances over the same data racing on one expected revision: exactly one wins, the others get REVISION_CONFLICT {expectedRevision, actualRevision}, and no batch is partly written or interleaved.',
  async run(context) {
    const instances = [await context.open(), await context.open(), await context.open()];
    const streamId = context.stream();
    const expected: StoredEvent[] = [];
    const rounds = 24;
    for (let round = 0; round < rounds; round++) {
      const count = round % 3 === 2 ? 3 : 2;
      const racers = rotate(instances, round)
        .slice(0, count)
        .map((storage, i) => ({ storage, label: `instance ${(i + round) % 3}`, batch: newBatch(`${streamId}-r${round}-i${i}`, 1 + ((round + i) % 4)) }));
      const winner = await race(streamId, expected.length, racers, `round ${round + 1}`);
      expected.push(...storedEvents(streamId, expected.length, winner.batch));
    }
    for (const [i, storage] of instances.entries()) await checkStream(storage, streamId, expected, `after ${rounds} rounds, instance ${i}`);
    await checkStream(await context.open(), streamId, expected, `after ${rounds} rounds, a new instance`);

    // Appends to different streams do not conflict, however they interleave.
    const streams = instances.map((_, i) => context.stream(`own${i}`));
    const batches = instances.map((_, i) => newBatch(`${streams[i]}-x`, 3));
    const heads = await Promise.all(instances.map((storage, i) => expectOk(() => storage.append(streams[i]!, 0, batches[i]!), `concurrent append to ${streams[i]}`)));
    heads.forEach((head, i) => check(head === 3, `concurrent append to ${streams[i]} returned ${show(head)}, expected 3.`));
    for (const [i, stream] of streams.entries()) await checkStream(instances[0]!, stream, storedEvents(stream, 0, batches[i]!), 'appends to different streams at once');
  },
};

const racingAppendsOneInstance: ConformanceCaseDefinition = {
  name: 'racing-appends-one-instance',
  rule: 'Concurrent appends through one instance on one expected revision: exactly one wins; on different streams all succeed.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    const expected: StoredEvent[] = [];
    for (let round = 0; round < 12; round++) {
      const racers = [0, 1, 2].map((i) => ({ storage, label: `call ${i}`, batch: newBatch(`${streamId}-r${round}-c${i}`, 1 + ((round + i) % 3)) }));
      const winner = await race(streamId, expected.length, racers, `round ${round + 1}`);
      expected.push(...storedEvents(streamId, expected.length, winner.batch));
    }
    await checkStream(storage, streamId, expected, 'after the rounds');
    const streams = [0, 1, 2, 3, 4].map((i) => context.stream(`own${i}`));
    const heads = await Promise.all(streams.map((stream) => expectOk(() => storage.append(stream, 0, newBatch(`${stream}-x`, 2)), `concurrent append to ${stream}`)));
    heads.forEach((head, i) => check(head === 2, `concurrent append to ${streams[i]} returned ${show(head)}, expected 2.`));
  },
};

const conflictBehindAndAhead: ConformanceCaseDefinition = {
  name: 'conflict-behind-and-ahead',
  rule: 'An expected revision behind or ahead of the head is REVISION_CONFLICT {expectedRevision, actualRevision}, and nothing is written.',
  async run(context) {
    const storage = await context.open();
    const stale = await context.open();
    const streamId = context.stream();
    const batch = newBatch(`${streamId}-a`, 2);
    await expectOk(() => storage.append(streamId, 0, batch), 'the first append');
    const expected = storedEvents(streamId, 0, batch);
    for (const [instance, label] of [[storage, 'the writer'], [stale, 'another instance']] as const) {
      for (const expectedRevision of [0, 1, 3, 10]) {
        const error = await expectRejects(
          () => instance.append(streamId, expectedRevision, newBatch(`${streamId}-at${expectedRevision}`, 2)),
          'REVISION_CONFLICT',
          `append at ${expectedRevision} by ${label} when the head is 2`,
        );
        checkConflictDetails(error, expectedRevision, 2, `append at ${expectedRevision} by ${label}`);
      }
    }
    await checkStream(storage, streamId, expected, 'after the refused appends');
    const empty = context.stream('empty');
    const error = await expectRejects(() => storage.append(empty, 1, newBatch(`${empty}-x`, 1)), 'REVISION_CONFLICT', 'append at 1 to an empty stream');
    checkConflictDetails(error, 1, 0, 'append at 1 to an empty stream');
    await checkStream(storage, empty, [], 'the empty stream after a refused append');
  },
};

/** The same events as new objects with their keys in another order: byte-identical once canonical. */
function reordered(events: readonly NewEvent[]): MutableEvent[] {
  return events.map((event) => {
    const copy = copyJson(event);
    return {
      payload: copy.payload,
      causationId: copy.causationId,
      correlationId: copy.correlationId,
      timestamp: copy.timestamp,
      version: copy.version,
      type: copy.type,
      eventId: copy.eventId,
    };
  });
}

const byteIdenticalRetry: ConformanceCaseDefinition = {
  name: 'byte-identical-retry',
  rule: 'Retrying a batch byte-identical to the one committed at that revision returns that batch\'s head and writes nothing (also after later batches and from a new instance); any difference is REVISION_CONFLICT.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    const first = newBatch(`${streamId}-first`, 3);
    const second = newBatch(`${streamId}-second`, 2);
    await expectOk(() => storage.append(streamId, 0, first), 'the first batch');
    const expected = storedEvents(streamId, 0, first);

    const retried = await expectOk(() => storage.append(streamId, 0, reordered(first)), 'a retry of the first batch');
    check(retried === 3, `a retry of the committed first batch should return 3, got ${show(retried)}.`);
    await checkStream(storage, streamId, expected, 'after retrying the first batch');

    await expectOk(() => storage.append(streamId, 3, second), 'the second batch');
    expected.push(...storedEvents(streamId, 3, second));
    const later = await expectOk(() => storage.append(streamId, 0, copyJson(first)), 'a retry of the first batch after a later batch');
    check(later === 3, `a retry of the first batch after a later one should return 3 (that batch's head), got ${show(later)}.`);
    const reopened = await context.open();
    const fromNew = await expectOk(() => reopened.append(streamId, 3, copyJson(second)), 'a retry of the second batch from a new instance');
    check(fromNew === 5, `a retry of the second batch from a new instance should return 5, got ${show(fromNew)}.`);
    await checkStream(storage, streamId, expected, 'after the retries');

    const variants: [string, MutableEvent[]][] = [
      ['a different payload', copyJson(first).map((event, i) => (i === 2 ? { ...event, payload: { changed: true } } : event))],
      ['a timestamp one millisecond later', copyJson(first).map((event, i) => (i === 0 ? { ...event, timestamp: '2025-01-02T03:04:05.679Z' } : event))],
      ['a different causation id', copyJson(first).map((event, i) => (i === 1 ? { ...event, causationId: 'cause' } : event))],
      ['one event more than was committed', [...copyJson(first), ...copyJson(second), newEvent(`${streamId}-extra`)]],
      ['the events in another order', [first[1]!, first[0]!, first[2]!].map(copyJson)],
    ];
    for (const [label, batch] of variants) {
      const error = await expectRejects(() => storage.append(streamId, 0, batch), 'REVISION_CONFLICT', `a retry of the first batch with ${label}`);
      checkConflictDetails(error, 0, 5, `a retry of the first batch with ${label}`);
    }
    await checkStream(reopened, streamId, expected, 'after the refused retries');
  },
};

const duplicateEventIds: ConformanceCaseDefinition = {
  name: 'duplicate-event-ids',
  rule: 'An event id repeated in the batch, or already in the stream (however long ago, whichever instance wrote it), is DUPLICATE_EVENT_ID and nothing is written; other streams may reuse ids.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    const twice = [newEvent(`${streamId}-x`), newEvent(`${streamId}-y`), newEvent(`${streamId}-x`, { other: 'payload' })];
    await expectRejects(() => storage.append(streamId, 0, twice), 'DUPLICATE_EVENT_ID', 'a batch with one id twice');
    await checkStream(storage, streamId, [], 'after a batch with one id twice');

    const expected: StoredEvent[] = [];
    for (const label of ['a', 'b', 'c']) {
      const batch = newBatch(`${streamId}-${label}`, 2);
      await expectOk(() => storage.append(streamId, expected.length, batch), `batch ${label}`);
      expected.push(...storedEvents(streamId, expected.length, batch));
    }
    const reused = (id: string) => [newEvent(`${streamId}-fresh-${id}`), newEvent(id, { reused: true })];
    await expectRejects(() => storage.append(streamId, 6, reused(`${streamId}-c-2`)), 'DUPLICATE_EVENT_ID', 'reusing an id of the last batch');
    await expectRejects(() => storage.append(streamId, 6, reused(`${streamId}-a-1`)), 'DUPLICATE_EVENT_ID', 'reusing the stream\'s first id');
    const reopened = await context.open();
    await expectRejects(() => reopened.append(streamId, 6, reused(`${streamId}-b-1`)), 'DUPLICATE_EVENT_ID', 'reusing an old id from a new instance');
    await checkStream(reopened, streamId, expected, 'after the refused duplicates');

    const elsewhere = context.stream('elsewhere');
    const sameIds = [newEvent(`${streamId}-a-1`), newEvent(`${streamId}-b-2`)];
    const head = await expectOk(() => storage.append(elsewhere, 0, sameIds), 'reusing ids in another stream');
    check(head === 2, `an append reusing another stream's ids should return 2, got ${show(head)}.`);
  },
};

export const revisionCases = [racingInstancesOneWins, racingAppendsOneInstance, conflictBehindAndAhead, byteIdenticalRetry, duplicateEventIds];
