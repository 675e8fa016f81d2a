import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldStream } from '@roundtable/graph';
import { createMemoryStorage } from '@roundtable/storage-memory';
import type { NewEvent, StoredEvent } from '@roundtable/storage';
import { newEvent } from '@roundtable/test-utils';
import { createGraphExecutor } from './index.js';
import { compileSeed, readAll, seedNodes } from './__fixtures__/testTeams.js';

// Issue 22: the executor must never write into a stream it cannot fold. Whatever a stream
// already holds (a valid record cut anywhere, with host events put in, events dropped, swapped
// or repeated), after `createGraphExecutor` and `run()` — resolved or thrown — either the
// record still folds, or nothing was appended.

const RUN = 'unfoldable-1';

/** A whole valid record of the seed team, as new events to append again. */
async function validRecord(): Promise<NewEvent[]> {
  const storage = createMemoryStorage();
  expect((await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes })).run()).kind).toBe('complete');
  return (await readAll(storage, RUN)).map(({ eventId, type, version, timestamp, correlationId, causationId, payload }: StoredEvent) => ({
    eventId,
    type,
    version,
    timestamp,
    correlationId,
    causationId,
    payload,
  }));
}

type Edit = { kind: 'host' | 'drop' | 'swap' | 'repeat'; at: number };

function edited(record: readonly NewEvent[], cut: number, edits: readonly Edit[]): NewEvent[] {
  const events = record.slice(0, cut);
  edits.forEach((edit, n) => {
    const at = events.length === 0 ? 0 : edit.at % (events.length + 1);
    if (edit.kind === 'host') events.splice(at, 0, newEvent(`host-${n}`, { note: n }, { type: 'host:note' }) as NewEvent);
    else if (events.length === 0) return;
    else if (edit.kind === 'drop') events.splice(Math.min(at, events.length - 1), 1);
    else if (edit.kind === 'repeat') events.splice(at, 0, { ...events[Math.min(at, events.length - 1)]!, eventId: `again-${n}` });
    else if (at + 1 < events.length) [events[at], events[at + 1]] = [events[at + 1]!, events[at]!];
  });
  return events;
}

describe('a stream the executor cannot fold', () => {
  it('is refused with INVALID_EVENT before anything is written when its revision 1 is a host event', async () => {
    const storage = createMemoryStorage();
    await storage.append(RUN, 0, [newEvent('host-1', { note: 'mine' }, { type: 'host:note' })]);
    await expect(createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes })).rejects.toMatchObject({ code: 'INVALID_EVENT' });
    expect(await storage.head(RUN)).toBe(1);
  });

  it('is never written into, whatever it holds: after run() the record folds, or nothing was appended', async () => {
    const record = await validRecord();
    await fc.assert(
      fc.asyncProperty(
        fc.nat(record.length),
        fc.array(fc.record({ kind: fc.constantFrom<Edit['kind']>('host', 'drop', 'swap', 'repeat'), at: fc.nat(40) }), { maxLength: 3 }),
        async (cut, edits) => {
          const storage = createMemoryStorage();
          const events = edited(record, cut, edits);
          if (events.length > 0) await storage.append(RUN, 0, events);
          try {
            await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes })).run();
          } catch (error) {
            expect(error).toMatchObject({ code: expect.stringMatching(/^(INVALID_EVENT|STORED_GRAPH_MISMATCH|DUPLICATE_POSITION|EMPTY_DECISION)$/) });
          }
          const head = await storage.head(RUN);
          if (head === events.length) return;
          // Something was written: then the whole record must fold.
          await foldStream(storage, RUN, { graph: compileSeed() });
        },
      ),
      { numRuns: 300 },
    );
  });
});
