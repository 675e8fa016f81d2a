import type { NewEvent, StoredEvent } from '../events.js';
import type { RunStorage } from '../storage.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { copyJson, newEvent, randomJson, randomSource, storedEvents } from './fixtures.js';
import { check, checkConflictDetails, checkEvents, checkHead, checkStream, expectOk, expectRejects, listStreams, readEvents, show } from './harness.js';

interface ModelStream {
  readonly streamId: string;
  readonly events: StoredEvent[];
  readonly batches: { readonly expectedRevision: number; readonly events: readonly NewEvent[] }[];
}

const OPERATIONS = 160;

/**
 * Random appends (fresh, stale, ahead, retried, with reused ids), reads, heads, listings and
 * reopens across two instances and three streams, each checked against a plain in-memory model.
 * Seeded: a failure names the seed and step, and the same seed replays the same sequence.
 */
const randomOperationsMatchModel: ConformanceCaseDefinition = {
  name: 'random-operations-match-model',
  rule: 'Any sequence of appends, retries, conflicts, duplicates, reads and reopens behaves as the rules above say, step by step.',
  async run(context) {
    const random = randomSource(context.seed);
    const below = (n: number) => Math.floor(random() * n);
    const streams: ModelStream[] = [0, 1, 2].map((i) => ({ streamId: context.stream(`m${i}`), events: [], batches: [] }));
    const instances: RunStorage[] = [await context.open(), await context.open()];
    let nextId = 0;
    const freshBatch = (size: number): NewEvent[] =>
      Array.from({ length: size }, () => {
        nextId++;
        return newEvent(`model-${nextId}`, randomJson(random), { causationId: below(2) === 0 ? null : `cause-${below(5)}` });
      });

    for (let step = 1; step <= OPERATIONS; step++) {
      const stream = streams[below(streams.length)]!;
      const { streamId, events } = stream;
      const slot = below(instances.length);
      const storage = instances[slot]!;
      const head = events.length;
      const roll = below(100);
      const at = (what: string) => `seed ${context.seed}, step ${step}: ${what} on ${streamId} (head ${head}, instance ${slot})`;
      if (roll < 35) {
        const batch = freshBatch(1 + below(4));
        const result = await expectOk(() => storage.append(streamId, head, batch), at('a fresh append'));
        check(result === head + batch.length, `${at('a fresh append')}: returned ${show(result)}, expected ${head + batch.length}.`);
        stream.batches.push({ expectedRevision: head, events: batch });
        events.push(...storedEvents(streamId, head, batch));
      } else if (roll < 50) {
        const expectedRevision = head > 0 && below(2) === 0 ? below(head) : head + 1 + below(3);
        const error = await expectRejects(() => storage.append(streamId, expectedRevision, freshBatch(1 + below(2))), 'REVISION_CONFLICT', at(`an append at ${expectedRevision}`));
        checkConflictDetails(error, expectedRevision, head, at(`an append at ${expectedRevision}`));
      } else if (roll < 62 && stream.batches.length > 0) {
        const batch = stream.batches[below(stream.batches.length)]!;
        const result = await expectOk(() => storage.append(streamId, batch.expectedRevision, copyJson(batch.events)), at(`a retry of the batch at ${batch.expectedRevision}`));
        const batchHead = batch.expectedRevision + batch.events.length;
        check(result === batchHead, `${at(`a retry of the batch at ${batch.expectedRevision}`)}: returned ${show(result)}, expected ${batchHead}.`);
      } else if (roll < 72 && head > 0) {
        const reused = events[below(head)]!.eventId;
        const batch = [...freshBatch(below(2)), newEvent(reused, { reused: true })];
        await expectRejects(() => storage.append(streamId, head, batch), 'DUPLICATE_EVENT_ID', at(`an append reusing ${reused}`));
      } else if (roll < 84) {
        const after = below(head + 2);
        checkEvents(await readEvents(storage, streamId, { after }, at(`read after ${after}`)), events.slice(after), at(`read after ${after}`));
      } else if (roll < 92) {
        await checkHead(storage, streamId, head, at('head'));
      } else if (roll < 96) {
        const listed = await listStreams(storage, at('streams()'));
        for (const other of streams) {
          const want = other.events.length === 0 ? undefined : other.events.length;
          check(listed.get(other.streamId) === want, `${at('streams()')}: ${other.streamId} listed with ${show(listed.get(other.streamId) ?? 'nothing')}, expected ${show(want ?? 'nothing')}.`);
        }
      } else {
        await expectOk(() => storage.close(), at('close()'));
        instances[slot] = await context.open();
      }
    }
    const last = await context.open();
    for (const stream of streams) await checkStream(last, stream.streamId, stream.events, `seed ${context.seed}, at the end`);
  },
};

export const modelCases = [randomOperationsMatchModel];
