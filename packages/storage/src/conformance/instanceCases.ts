import { DEFAULT_NAMESPACE } from '../storage.js';
import type { RunStorage } from '../storage.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { newBatch, newEvent, storedEvents } from './fixtures.js';
import { check, checkConflictDetails, checkHead, checkStream, collect, expectOk, expectRejects, listStreams, show } from './harness.js';

async function checkListing(storage: RunStorage, expected: ReadonlyMap<string, number>, exact: boolean, what: string): Promise<void> {
  const listed = await listStreams(storage, `${what}: streams()`);
  for (const [streamId, head] of expected) {
    check(listed.get(streamId) === head, `${what}: streams() should list ${streamId} with head ${head}, got ${show(listed.get(streamId) ?? 'nothing')}.`);
  }
  if (!exact) return;
  const extra = [...listed.keys()].filter((streamId) => !expected.has(streamId));
  check(extra.length === 0, `${what}: streams() lists streams that are not in this namespace: ${show(extra)}.`);
}

const namespaceIsolation: ConformanceCaseDefinition = {
  name: 'namespace-isolation',
  rule: 'Namespaces over the same data never see each other\'s streams: not in head, read, streams(), duplicate ids or retries.',
  async run(context) {
    const nsA = context.namespace('a');
    const nsB = context.namespace('b');
    const a = await context.open({ namespace: nsA });
    const b = await context.open({ namespace: nsB });
    const fallback = await context.open();
    const shared = context.stream('shared');
    const onlyB = context.stream('only-b');
    const batchA = newBatch(`${shared}-ev`, 2);
    const batchB = [newEvent(`${shared}-ev-1`, { namespace: 'b' })];
    await expectOk(() => a.append(shared, 0, batchA), `append to ${shared} in namespace ${nsA}`);
    const headB = await expectOk(() => b.append(shared, 0, batchB), `append to ${shared} (same name, same event id) in namespace ${nsB}`);
    check(headB === 1, `an append in namespace ${nsB} should not see namespace ${nsA}: expected head 1, got ${show(headB)}.`);
    await expectOk(() => b.append(onlyB, 0, newBatch(`${onlyB}-ev`, 3)), `append to ${onlyB} in namespace ${nsB}`);

    await checkStream(a, shared, storedEvents(shared, 0, batchA), `namespace ${nsA}`);
    await checkStream(b, shared, storedEvents(shared, 0, batchB), `namespace ${nsB}`);
    await checkStream(fallback, shared, [], `the default namespace`);
    await checkStream(a, onlyB, [], `namespace ${nsA}, a stream only ${nsB} has`);
    await checkListing(a, new Map([[shared, 2]]), true, `namespace ${nsA}`);
    await checkListing(b, new Map([[shared, 1], [onlyB, 3]]), true, `namespace ${nsB}`);
    const inDefault = await listStreams(fallback, 'the default namespace: streams()');
    check(!inDefault.has(shared) && !inDefault.has(onlyB), `the default namespace lists streams of namespaces ${nsA}/${nsB}.`);

    const error = await expectRejects(() => a.append(shared, 0, batchB), 'REVISION_CONFLICT', `a retry in ${nsA} of the batch committed in ${nsB}`);
    checkConflictDetails(error, 0, 2, `a retry in ${nsA} of the batch committed in ${nsB}`);
    const reopened = await context.open({ namespace: nsA });
    await checkStream(reopened, shared, storedEvents(shared, 0, batchA), `namespace ${nsA}, reopened`);
    await checkListing(reopened, new Map([[shared, 2]]), true, `namespace ${nsA}, reopened`);
    await checkListing(await context.open({ namespace: context.namespace('empty') }), new Map(), true, 'a namespace with no streams');
  },
};

const streamsListsHeads: ConformanceCaseDefinition = {
  name: 'streams-lists-heads',
  rule: '`streams()` lists every stream of the namespace once, with its current head, from any instance.',
  async run(context) {
    const storage = await context.open();
    const expected = new Map<string, number>();
    for (const size of [1, 2, 3]) {
      const streamId = context.stream(`n${size}`);
      await expectOk(() => storage.append(streamId, 0, newBatch(`${streamId}-ev`, size)), `append to ${streamId}`);
      expected.set(streamId, size);
    }
    await checkListing(storage, expected, false, 'the writer');
    const [grown] = expected.keys();
    await expectOk(() => storage.append(grown!, 1, newBatch(`${grown}-more`, 4)), `append more to ${grown}`);
    expected.set(grown!, 5);
    await checkListing(storage, expected, false, 'the writer after one stream grew');
    await checkListing(await context.open(), expected, false, 'another instance');
  },
};

const identity: ConformanceCaseDefinition = {
  name: 'identity',
  rule: '`identity` has string `adapter`, `version`, `namespace` and `location`; the namespace is the option (default "default"); instances over the same data agree.',
  async run(context) {
    const first = await context.open();
    const second = await context.open();
    const namespace = context.namespace('id');
    const named = await context.open({ namespace });
    for (const [storage, wanted, label] of [[first, DEFAULT_NAMESPACE, 'an instance'], [named, namespace, 'an instance with a namespace']] as const) {
      const value = storage.identity as unknown as Record<string, unknown> | undefined;
      check(typeof value === 'object' && value !== null, `${label}: identity should be an object, got ${show(value)}.`);
      for (const field of ['adapter', 'version', 'location'] as const) {
        check(typeof value![field] === 'string' && value![field] !== '', `${label}: identity.${field} should be a non-empty string, got ${show(value![field])}.`);
      }
      check(value!.namespace === wanted, `${label}: identity.namespace should be ${show(wanted)}, got ${show(value!.namespace)}.`);
    }
    check(first.identity.adapter === named.identity.adapter, 'identity.adapter differs between two instances of one adapter.');
    check(
      first.identity.location === second.identity.location,
      `two instances over the same data should have the same identity.location, got ${show(first.identity.location)} and ${show(second.identity.location)}.`,
    );
  },
};

const closedInstanceRejects: ConformanceCaseDefinition = {
  name: 'closed-instance-rejects',
  rule: 'After `close()`, head, read, append and streams reject with STORAGE_CLOSED; close again resolves; other instances are unaffected.',
  async run(context) {
    const closing = await context.open();
    const other = await context.open();
    const streamId = context.stream();
    const first = newBatch(`${streamId}-a`, 2);
    await expectOk(() => closing.append(streamId, 0, first), 'append before close');
    await expectOk(() => closing.close(), 'close()');
    await expectRejects(() => closing.head(streamId), 'STORAGE_CLOSED', 'head after close');
    await expectRejects(() => collect(() => closing.read(streamId)), 'STORAGE_CLOSED', 'read after close');
    await expectRejects(() => closing.append(streamId, 2, newBatch(`${streamId}-late`, 1)), 'STORAGE_CLOSED', 'append after close');
    await expectRejects(() => collect(() => closing.streams()), 'STORAGE_CLOSED', 'streams after close');
    await expectOk(() => closing.close(), 'a second close()');
    const second = newBatch(`${streamId}-b`, 1);
    await expectOk(() => other.append(streamId, 2, second), 'append by another instance after one closed');
    await checkStream(other, streamId, [...storedEvents(streamId, 0, first), ...storedEvents(streamId, 2, second)], 'another instance after one closed');
    await checkHead(await context.open(), streamId, 3, 'a new instance');
  },
};

const readOnlyInstance: ConformanceCaseDefinition = {
  name: 'read-only-instance',
  rule: 'An instance opened with `readOnly: true` reads what any instance wrote (also after it opened), refuses every append with STORAGE_READ_ONLY and writes nothing, and reads a namespace nobody wrote to as empty; a `readOnly` that is not a boolean is INVALID_STORAGE_OPTIONS.',
  async run(context) {
    await context.expectOpenRefused({ readOnly: 'yes' as unknown as boolean }, 'INVALID_STORAGE_OPTIONS', 'create({ readOnly: "yes" })');
    const writer = await context.open();
    const streamId = context.stream();
    const first = newBatch(`${streamId}-a`, 2);
    await expectOk(() => writer.append(streamId, 0, first), 'append by a writer');
    const reader = await context.open({ readOnly: true });
    await checkStream(reader, streamId, storedEvents(streamId, 0, first), 'a read-only instance');
    await checkListing(reader, new Map([[streamId, 2]]), false, 'a read-only instance');

    const fresh = context.stream('fresh');
    await expectRejects(() => reader.append(streamId, 2, newBatch(`${streamId}-refused`, 1)), 'STORAGE_READ_ONLY', 'an append at the head through a read-only instance');
    await expectRejects(() => reader.append(fresh, 0, newBatch(`${fresh}-refused`, 1)), 'STORAGE_READ_ONLY', 'an append to a new stream through a read-only instance');
    await expectRejects(() => reader.append(streamId, 0, first), 'STORAGE_READ_ONLY', 'a byte-identical retry through a read-only instance');
    await checkStream(writer, streamId, storedEvents(streamId, 0, first), 'the writer after refused read-only appends');
    await checkHead(await context.open(), fresh, 0, 'a new instance, for a stream only a read-only instance tried to create');

    const second = newBatch(`${streamId}-b`, 1);
    await expectOk(() => writer.append(streamId, 2, second), 'append by the writer after the read-only instance opened');
    await checkStream(reader, streamId, [...storedEvents(streamId, 0, first), ...storedEvents(streamId, 2, second)], 'the read-only instance, after the writer appended');

    const namespace = context.namespace('ro');
    const emptyReader = await context.open({ namespace, readOnly: true });
    await checkStream(emptyReader, streamId, [], 'a read-only instance of a namespace nobody wrote to');
    await checkListing(emptyReader, new Map(), true, 'a read-only instance of a namespace nobody wrote to');
    const late = newBatch(`${streamId}-late`, 1);
    await expectOk(() => context.open({ namespace }).then((storage) => storage.append(streamId, 0, late)), `append in namespace ${namespace} after a read-only instance of it opened`);
    await checkStream(emptyReader, streamId, storedEvents(streamId, 0, late), 'the read-only instance, after its namespace got its first stream');
  },
};

export const instanceCases = [namespaceIsolation, streamsListsHeads, identity, closedInstanceRejects, readOnlyInstance];
