import type { StoredEvent } from '../events.js';
import type { RunStorage } from '../storage.js';
import { DEFAULT_STORAGE_LIMITS } from '../storage.js';
import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { batchOfBytes, eventWithPayloadBytes, newEvent, storedEvents } from './fixtures.js';
import type { MutableEvent } from './fixtures.js';
import { check, checkStream, expectOk, expectRejects, show } from './harness.js';

/** Appends `batch`, which must pass, and records it in `expected`. */
async function appendPasses(storage: RunStorage, streamId: string, expected: StoredEvent[], batch: MutableEvent[], what: string): Promise<void> {
  const head = await expectOk(() => storage.append(streamId, expected.length, batch), what);
  check(head === expected.length + batch.length, `${what}: expected head ${expected.length + batch.length}, got ${show(head)}.`);
  expected.push(...storedEvents(streamId, expected.length, batch));
}

async function appendRefused(storage: RunStorage, streamId: string, expected: readonly StoredEvent[], batch: MutableEvent[], what: string): Promise<void> {
  await expectRejects(() => storage.append(streamId, expected.length, batch), 'STORAGE_LIMIT_EXCEEDED', what);
  await checkStream(storage, streamId, expected, `after ${what}`);
}

async function checkPayloadLimit(storage: RunStorage, streamId: string, max: number): Promise<void> {
  const expected: StoredEvent[] = [];
  for (const multibyte of [false, true]) {
    const kind = multibyte ? 'two-byte characters' : 'ASCII';
    await appendPasses(storage, streamId, expected, [eventWithPayloadBytes(`${streamId}-at-${kind}`, max, multibyte)], `a payload of exactly ${max} bytes (${kind})`);
    await appendRefused(storage, streamId, expected, [eventWithPayloadBytes(`${streamId}-over-${kind}`, max + 1, multibyte)], `a payload of ${max + 1} bytes (${kind})`);
  }
  const mixed = [newEvent(`${streamId}-small`), eventWithPayloadBytes(`${streamId}-big`, max + 1)];
  await appendRefused(storage, streamId, expected, mixed, `a batch whose second event's payload is ${max + 1} bytes`);
}

async function checkBatchLimit(storage: RunStorage, streamId: string, max: number, maxPayload: number, count: number): Promise<void> {
  const expected: StoredEvent[] = [];
  await appendPasses(storage, streamId, expected, batchOfBytes(`${streamId}-at`, count, max, maxPayload), `a batch of exactly ${max} bytes`);
  await appendRefused(storage, streamId, expected, batchOfBytes(`${streamId}-over`, count, max + 1, maxPayload), `a batch of ${max + 1} bytes`);
}

const LIMITS = { maxEventPayloadBytes: 1000, maxAppendBatchBytes: 3000 };

const payloadLimitBoundary: ConformanceCaseDefinition = {
  name: 'payload-limit-boundary',
  rule: 'A payload of exactly `limits.maxEventPayloadBytes` UTF-8 bytes of canonical JSON passes; one byte more is STORAGE_LIMIT_EXCEEDED and nothing of the batch is written.',
  async run(context) {
    const storage = await context.open({ limits: LIMITS });
    await checkPayloadLimit(storage, context.stream(), LIMITS.maxEventPayloadBytes);
  },
};

const batchLimitBoundary: ConformanceCaseDefinition = {
  name: 'batch-limit-boundary',
  rule: 'A batch whose events\' canonical JSON is exactly `limits.maxAppendBatchBytes` UTF-8 bytes passes; one byte more is STORAGE_LIMIT_EXCEEDED and nothing is written.',
  async run(context) {
    const storage = await context.open({ limits: LIMITS });
    await checkBatchLimit(storage, context.stream(), LIMITS.maxAppendBatchBytes, LIMITS.maxEventPayloadBytes, 4);
  },
};

const defaultLimits: ConformanceCaseDefinition = {
  name: 'default-limits',
  rule: 'Without a `limits` option the limits are 262,144 payload bytes and 1,048,576 batch bytes, each exact at the boundary.',
  async run(context) {
    const storage = await context.open();
    const { maxEventPayloadBytes, maxAppendBatchBytes } = DEFAULT_STORAGE_LIMITS;
    const payloadStream = context.stream('payload');
    const expected: StoredEvent[] = [];
    await appendPasses(storage, payloadStream, expected, [eventWithPayloadBytes(`${payloadStream}-at`, maxEventPayloadBytes)], `a payload of exactly ${maxEventPayloadBytes} bytes`);
    await appendRefused(storage, payloadStream, expected, [eventWithPayloadBytes(`${payloadStream}-over`, maxEventPayloadBytes + 1)], `a payload of ${maxEventPayloadBytes + 1} bytes`);
    await checkBatchLimit(storage, context.stream('batch'), maxAppendBatchBytes, maxEventPayloadBytes, 5);
  },
};

export const limitCases = [payloadLimitBoundary, batchLimitBoundary, defaultLimits];
