import type { StoredEvent } from '../events.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { copyJson, newBatch, newEvent, storedEvents } from './fixtures.js';
import type { MutableEvent } from './fixtures.js';
import { check, checkStream, expectOk, readEvents, show } from './harness.js';

const durableAppendAcrossReopen: ConformanceCaseDefinition = {
  name: 'durable-append-across-reopen',
  rule: 'Appended batches are kept in order and seen by every instance over the same data, including one opened after the writer closed.',
  async run(context) {
    const early = await context.open();
    const writer = await context.open();
    const first = context.stream('first');
    const second = context.stream('second');
    const expected: StoredEvent[] = [];
    for (const [label, size] of [['a', 1], ['b', 3], ['c', 2]] as const) {
      const batch = newBatch(`${first}-${label}`, size);
      const head = await expectOk(() => writer.append(first, expected.length, batch), `append batch ${label} to ${first}`);
      expected.push(...storedEvents(first, expected.length, batch));
      check(head === expected.length, `append batch ${label} should return head ${expected.length}, got ${show(head)}.`);
    }
    const other = newBatch(`${second}-only`, 1);
    await expectOk(() => writer.append(second, 0, other), `append to ${second}`);
    await checkStream(writer, first, expected, 'the writer');
    await checkStream(early, first, expected, 'an instance opened before the appends');
    await expectOk(() => writer.close(), 'close() of the writer');

    const reopened = await context.open();
    await checkStream(reopened, first, expected, 'an instance opened after the writer closed');
    await checkStream(reopened, second, storedEvents(second, 0, other), 'an instance opened after the writer closed');
    const more = newBatch(`${first}-d`, 2);
    const head = await expectOk(() => reopened.append(first, expected.length, more), 'append after reopening');
    expected.push(...storedEvents(first, expected.length, more));
    check(head === expected.length, `append after reopening should return head ${expected.length}, got ${show(head)}.`);
    await expectOk(() => reopened.close(), 'close() of the reopened instance');

    const third = await context.open();
    await checkStream(third, first, expected, 'a third instance');
    await checkStream(early, first, expected, 'the instance opened first');
  },
};

/** Tries an edit that may throw (events handed out frozen); either outcome is fine. */
function tryEdit(edit: () => void): void {
  try {
    edit();
  } catch {
    // A frozen event refuses the edit, which is one of the allowed answers.
  }
}

const callerMutationIsIsolated: ConformanceCaseDefinition = {
  name: 'caller-mutation-is-isolated',
  rule: 'Editing the events after calling append (even before it settles), or editing events read back, changes nothing stored.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    const events = newBatch(streamId, 2);
    const expected = storedEvents(streamId, 0, events);
    const pending = storage.append(streamId, 0, events);
    const edit = (event: MutableEvent, tag: string) => {
      const payload = event.payload as { nested: { list: unknown[]; text: string } };
      payload.nested.list.push(tag);
      payload.nested.text = tag;
      event.eventId = `${tag}-id`;
      event.version = 99;
    };
    // Edited before the append settles: the batch belongs to storage from the moment of the call.
    edit(events[0]!, 'edited-before-settle');
    events.push(newEvent(`${streamId}-pushed`));
    await expectOk(() => pending, 'append');
    edit(events[1]!, 'edited-after-settle');
    await checkStream(storage, streamId, expected, 'after editing the appended events');

    const read = (await readEvents(storage, streamId, undefined, 'read')) as MutableEvent[];
    for (const event of read) {
      tryEdit(() => edit(event, 'edited-read'));
      tryEdit(() => ((event as unknown as { revision: number }).revision = 42));
    }
    await checkStream(storage, streamId, expected, 'after editing events returned by read');
    const other = await context.open();
    await checkStream(other, streamId, copyJson(expected), 'another instance, after the edits');
  },
};

export const durabilityCases = [durableAppendAcrossReopen, callerMutationIsIsolated];
