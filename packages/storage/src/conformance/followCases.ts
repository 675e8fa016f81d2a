import type { StoredEvent } from '../events.js';
import { followStream } from '../followStream.js';
import { waitForAppend } from '../waitForAppend.js';
import type { RunStorage } from '../storage.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { newBatch, storedEvents } from './fixtures.js';
import { check, checkEvents, checkStream, describeError, expectOk, fail } from './harness.js';
import type { CaseContext } from './harness.js';

/** How long a follower may take to deliver what was appended: generous, and well inside the case's own timeout. */
function deliveryTimeoutMs(context: CaseContext): number {
  return Math.min(5_000, context.caseTimeoutMs / 4);
}
/** How long the kit watches a quiet follower to see that it yields nothing. */
const QUIET_MS = 300;
/** Polling interval the kit follows with: short, so adapters without hints pass quickly too. */
const POLL_MS = 50;

/** A `followStream` running in the background, collecting what it yields. */
class Follower {
  readonly events: StoredEvent[] = [];
  readonly controller = new AbortController();
  readonly finished: Promise<{ error: unknown } | null>;
  private waiters: (() => void)[] = [];

  constructor(
    storage: RunStorage,
    streamId: string,
    after: number,
    private readonly timeoutMs: number,
  ) {
    this.finished = (async () => {
      try {
        for await (const event of followStream(storage, streamId, { after, signal: this.controller.signal, pollIntervalMs: POLL_MS })) {
          this.events.push(event);
          for (const waiter of this.waiters.splice(0)) waiter();
        }
        return null;
      } catch (error) {
        return { error };
      } finally {
        for (const waiter of this.waiters.splice(0)) waiter();
      }
    })();
  }

  /** Waits until at least `count` events arrived (or the follow ended); fails after the timeout. */
  async waitFor(count: number, what: string): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    let ended = false;
    void this.finished.then(() => (ended = true));
    while (this.events.length < count && !ended) {
      const left = deadline - Date.now();
      if (left <= 0) fail(`${what}: expected ${count} events within ${this.timeoutMs} ms, got ${this.events.length}.`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const outcome = ended ? await this.finished : null;
    if (outcome !== null) fail(`${what}: the follow failed: ${describeError(outcome.error)}.`);
  }

  /** Aborts and checks the iteration ended without an error, within the timeout. */
  async stop(what: string): Promise<void> {
    this.controller.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      this.finished,
      new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), this.timeoutMs))),
    ]);
    clearTimeout(timer);
    if (outcome === 'hung') fail(`${what}: the follow did not end within ${this.timeoutMs} ms of the abort.`);
    if (outcome !== null) fail(`${what}: the follow ended with an error instead of returning: ${describeError(outcome.error)}.`);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const followAcrossInstances: ConformanceCaseDefinition = {
  name: 'follow-across-instances',
  rule: '`followStream` yields every event with revision > after exactly once and in order, including batches appended later through another instance.',
  async run(context) {
    const writer = await context.open();
    const reader = await context.open();
    const streamId = context.stream();
    const expected: StoredEvent[] = [];
    const append = async (label: string, size: number) => {
      const batch = newBatch(`${streamId}-${label}`, size);
      await expectOk(() => writer.append(streamId, expected.length, batch), `append batch ${label}`);
      expected.push(...storedEvents(streamId, expected.length, batch));
    };
    await append('before', 2);
    // A plain read first, so an adapter that loses appends fails here, not after a follow's timeout.
    await checkStream(reader, streamId, expected, 'another instance before following');
    const fromStart = new Follower(reader, streamId, 0, deliveryTimeoutMs(context));
    const fromOne = new Follower(reader, streamId, 1, deliveryTimeoutMs(context));
    await fromStart.waitFor(2, 'a follow from 0 of a stream with 2 events');
    for (const [label, size] of [['a', 1], ['b', 3], ['c', 1], ['d', 2]] as const) {
      await append(label, size);
      // Half of the batches wait for delivery, half pile up while the follower is reading.
      if (label === 'a' || label === 'c') await fromStart.waitFor(expected.length, `a follow after batch ${label}`);
    }
    await fromStart.waitFor(expected.length, 'a follow from 0');
    await fromOne.waitFor(expected.length - 1, 'a follow from 1');
    await sleep(QUIET_MS);
    await fromStart.stop('a follow from 0');
    await fromOne.stop('a follow from 1');
    checkEvents(fromStart.events, expected, 'followStream(after 0) through another instance');
    checkEvents(fromOne.events, expected.slice(1), 'followStream(after 1) through another instance');
  },
};

const followAbortEnds: ConformanceCaseDefinition = {
  name: 'follow-abort-ends',
  rule: 'Aborting the signal ends a follow without an error: while it waits on a quiet or empty stream, and before it starts.',
  async run(context) {
    const storage = await context.open();
    const streamId = context.stream();
    const empty = new Follower(storage, streamId, 0, deliveryTimeoutMs(context));
    await sleep(QUIET_MS / 3);
    await empty.stop('a follow of an empty stream');
    check(empty.events.length === 0, `a follow of an empty stream yielded ${empty.events.length} events.`);

    const batch = newBatch(`${streamId}-ev`, 2);
    await expectOk(() => storage.append(streamId, 0, batch), 'append 2 events');
    await checkStream(storage, streamId, storedEvents(streamId, 0, batch), 'the stream before following');
    const waiting = new Follower(storage, streamId, 0, deliveryTimeoutMs(context));
    await waiting.waitFor(2, 'a follow of a stream with 2 events');
    await waiting.stop('a follow waiting for more');

    const aborted = new AbortController();
    aborted.abort();
    const yielded: unknown[] = [];
    await expectOk(async () => {
      for await (const event of followStream(storage, streamId, { signal: aborted.signal })) yielded.push(event);
    }, 'a follow whose signal was aborted before it started');
    check(yielded.length === 0, `a follow with an already aborted signal yielded ${yielded.length} events.`);
  },
};

const followAfterHead: ConformanceCaseDefinition = {
  name: 'follow-after-head',
  rule: 'A follow that starts at the head yields nothing until something new is appended, then exactly the new events.',
  async run(context) {
    const writer = await context.open();
    const reader = await context.open();
    const streamId = context.stream();
    const first = newBatch(`${streamId}-a`, 3);
    await expectOk(() => writer.append(streamId, 0, first), 'append 3 events');
    await checkStream(reader, streamId, storedEvents(streamId, 0, first), 'another instance before following');
    const follower = new Follower(reader, streamId, 3, deliveryTimeoutMs(context));
    await sleep(QUIET_MS);
    check(follower.events.length === 0, `a follow from the head (3) yielded ${follower.events.length} events before anything new was appended.`);
    const next = newBatch(`${streamId}-b`, 1);
    await expectOk(() => writer.append(streamId, 3, next), 'append 1 event');
    await follower.waitFor(1, 'a follow from the head after one more event');
    await sleep(QUIET_MS / 3);
    await follower.stop('a follow from the head');
    checkEvents(follower.events, storedEvents(streamId, 3, next), 'followStream(after head)');
  },
};

const waitForAppendAcrossInstances: ConformanceCaseDefinition = {
  name: 'wait-for-append-across-instances',
  rule: '`waitForAppend` resolves with the new head once another instance appends after the revision, at once when the head is already past it, and with the old head when its signal aborts.',
  async run(context) {
    const writer = await context.open();
    const reader = await context.open();
    const streamId = context.stream();
    const first = newBatch(`${streamId}-a`, 2);
    await expectOk(() => writer.append(streamId, 0, first), 'append 2 events');
    await checkStream(reader, streamId, storedEvents(streamId, 0, first), 'another instance before waiting');
    const past = await expectOk(() => waitForAppend(reader, streamId, { after: 1, pollIntervalMs: POLL_MS }), 'waitForAppend after 1 of a stream at 2');
    check(past === 2, `waitForAppend(after 1) of a stream at 2 resolved with ${String(past)}, not 2.`);

    let woke: number | null = null;
    const waiting = waitForAppend(reader, streamId, { after: 2, pollIntervalMs: POLL_MS }).then((head) => (woke = head));
    await sleep(QUIET_MS);
    check(woke === null, `waitForAppend(after 2) resolved with ${String(woke)} before anything was appended.`);
    await expectOk(() => writer.append(streamId, 2, newBatch(`${streamId}-b`, 3)), 'append 3 more events');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([waiting, new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), deliveryTimeoutMs(context))))]);
    clearTimeout(timer);
    check(outcome === 5, `waitForAppend(after 2) gave ${String(outcome)} after another instance appended up to 5.`);

    const controller = new AbortController();
    const quiet = waitForAppend(reader, streamId, { after: 5, signal: controller.signal, pollIntervalMs: POLL_MS });
    await sleep(QUIET_MS / 3);
    controller.abort();
    const aborted = await expectOk(() => quiet, 'waitForAppend(after 5) aborted while it waits');
    check(aborted === 5, `an aborted waitForAppend(after 5) resolved with ${String(aborted)}, not the head 5.`);
  },
};

export const followCases = [followAcrossInstances, followAbortEnds, followAfterHead, waitForAppendAcrossInstances];
