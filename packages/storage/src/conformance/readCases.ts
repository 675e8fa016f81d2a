import type { StoredEvent } from '../events.js';
import type { ReadOptions } from '../storage.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { newBatch, storedEvents } from './fixtures.js';
import { check, checkEvents, checkHead, collect, expectOk, expectRejects, listStreams, readEvents, show } from './harness.js';

const readAfterIsExclusive: ConformanceCaseDefinition = {
  name: 'read-after-is-exclusive',
  rule: '`read(streamId, { after })` yields exactly the events with revision > after, in order; a bad `after` is INVALID_STORED_VALUE.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    const expected: StoredEvent[] = [];
    for (const [label, size] of [['a', 2], ['b', 3], ['c', 1]] as const) {
      const batch = newBatch(`${streamId}-${label}`, size);
      await expectOk(() => storage.append(streamId, expected.length, batch), `append batch ${label}`);
      expected.push(...storedEvents(streamId, expected.length, batch));
    }
    const cases: [ReadOptions | undefined, number][] = [
      [undefined, 0],
      [{}, 0],
      [{ after: undefined }, 0],
      [{ after: 0 }, 0],
      [{ after: 1 }, 1],
      [{ after: 2 }, 2],
      [{ after: 5 }, 5],
      [{ after: 6 }, 6],
      [{ after: 7 }, 6],
      [{ after: 1000 }, 6],
    ];
    for (const [options, skip] of cases) {
      const events = await readEvents(storage, streamId, options, `read(${show(options)})`);
      checkEvents(events, expected.slice(skip), `read(${streamId}, ${show(options)})`);
    }
    for (const after of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1'] as unknown[]) {
      await expectRejects(() => collect(() => storage.read(streamId, { after } as ReadOptions)), 'INVALID_STORED_VALUE', `read with after ${show(after)}`);
    }
  },
};

const readSeesFiniteHead: ConformanceCaseDefinition = {
  name: 'read-sees-finite-head',
  rule: 'A read stops at the head as it was when iteration started: events appended meanwhile (by any instance) are not yielded by it.',
  async run(context) {
    const reader = await context.open();
    const writer = await context.open();
    const streamId = context.stream();
    const initial = newBatch(`${streamId}-initial`, 4);
    await expectOk(() => reader.append(streamId, 0, initial), 'append the initial batch');
    const expected = storedEvents(streamId, 0, initial);

    for (const [after, label] of [[0, 'whole'], [2, 'after-2']] as const) {
      const head = await expectOk(() => reader.head(streamId), 'head');
      const iterator = reader.read(streamId, { after })[Symbol.asyncIterator]();
      const seen: unknown[] = [];
      try {
        const first = await expectOk(() => iterator.next(), `first step of read after ${after}`);
        if (first.done !== true) seen.push(first.value);
        const own = newBatch(`${streamId}-${label}-own`, 2);
        await expectOk(() => reader.append(streamId, head, own), 'append by the reading instance while a read is open');
        const others = newBatch(`${streamId}-${label}-other`, 1);
        await expectOk(() => writer.append(streamId, head + 2, others), 'append by another instance while a read is open');
        expected.push(...storedEvents(streamId, head, own), ...storedEvents(streamId, head + 2, others));
        for (;;) {
          const step = await expectOk(() => iterator.next(), `reading on after the appends (after ${after})`);
          if (step.done === true) break;
          seen.push(step.value);
          check(seen.length <= expected.length, `read after ${after} did not end after ${seen.length} events.`);
        }
      } finally {
        await iterator.return?.();
      }
      checkEvents(seen, expected.slice(after, head), `a read after ${after} started at head ${head}, while 3 events were appended`);
    }
    await checkHead(reader, streamId, expected.length, 'after the reads');
    checkEvents(await readEvents(reader, streamId, undefined, 'a new read'), expected, 'a read started after the appends');
  },
};

const emptyStream: ConformanceCaseDefinition = {
  name: 'empty-stream',
  rule: 'An unknown stream has head 0, reads as nothing, and is not listed by `streams()`, even after appends to it were refused.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    await checkHead(storage, streamId, 0, 'an unknown stream');
    checkEvents(await readEvents(storage, streamId, undefined, 'read'), [], 'read of an unknown stream');
    checkEvents(await readEvents(storage, streamId, { after: 3 }, 'read after 3'), [], 'read of an unknown stream after 3');
    await expectRejects(() => storage.append(streamId, 2, newBatch(`${streamId}-ahead`, 1)), 'REVISION_CONFLICT', 'append at revision 2 to an unknown stream');
    await expectRejects(() => storage.append(streamId, 0, []), 'INVALID_STORED_VALUE', 'an empty append to an unknown stream');
    const listed = await listStreams(storage, 'streams()');
    check(!listed.has(streamId), `streams() lists ${streamId}, which has no events.`);
    const other = await context.open();
    await checkHead(other, streamId, 0, 'an unknown stream, from another instance');
    const listedByOther = await listStreams(other, 'streams() of another instance');
    check(!listedByOther.has(streamId), `streams() of another instance lists ${streamId}, which has no events.`);
  },
};

export const readCases = [readAfterIsExclusive, readSeesFiniteHead, emptyStream];
