import { canonicalJson, isRoundtableError } from '@roundtable/core';
import { isStorageError } from '../errors.js';
import type { StorageError, StorageErrorCode } from '../errors.js';
import type { StoredEvent } from '../events.js';
import type { ReadOptions, RunStorage, StorageOptions } from '../storage.js';

/** Opens a fresh storage instance over the backing data shared by the whole run. */
export type CreateStorage = (options?: StorageOptions) => RunStorage | Promise<RunStorage>;

/** A check the adapter did not pass. The runner records its message; anything else thrown is a surprise. */
export class ConformanceCheckFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceCheckFailed';
  }
}

export function fail(message: string): never {
  throw new ConformanceCheckFailed(message);
}

export function check(condition: boolean, message: string): void {
  if (!condition) fail(message);
}

/** A short description of what an adapter threw or returned, for failure messages. */
export function describeError(error: unknown): string {
  if (isRoundtableError(error)) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `a thrown ${typeof error} (${show(error)})`;
}

export function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Rounds a value through canonical JSON, or null when it is not JSON (so it can never equal an expectation). */
export function canonicalOrNull(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}

/** Awaits `action` and returns the storage error it rejected with; fails unless the code is `code`. */
export async function expectRejects(action: () => unknown, code: StorageErrorCode, what: string): Promise<StorageError> {
  let outcome: { value: unknown } | { error: unknown };
  try {
    outcome = { value: await action() };
  } catch (error) {
    outcome = { error };
  }
  if ('value' in outcome) return fail(`${what}: expected ${code}, but it succeeded (${show(outcome.value)}).`);
  if (!isStorageError(outcome.error, code)) return fail(`${what}: expected ${code}, got ${describeError(outcome.error)}.`);
  return outcome.error;
}

/** Awaits `action`, failing with a clear message if it rejects. */
export async function expectOk<T>(action: () => T | Promise<T>, what: string): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ConformanceCheckFailed) throw error;
    return fail(`${what}: unexpected ${describeError(error)}.`);
  }
}

/** Everything an async iterable yields; a synchronous throw from the call that made it counts as a rejection. */
export async function collect<T>(make: () => AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of make()) items.push(item);
  return items;
}

export function checkConflictDetails(error: StorageError, expectedRevision: number, actualRevision: number, what: string): void {
  const details = error.details ?? {};
  check(
    details.expectedRevision === expectedRevision && details.actualRevision === actualRevision,
    `${what}: REVISION_CONFLICT details should be {"expectedRevision":${expectedRevision},"actualRevision":${actualRevision}}, got ${show(details)}.`,
  );
}

/** Fails unless `actual` is exactly `expected`: same count, and each event equal in canonical JSON. */
export function checkEvents(actual: readonly unknown[], expected: readonly StoredEvent[], what: string): void {
  const limit = Math.min(actual.length, expected.length);
  for (let i = 0; i < limit; i++) {
    const got = canonicalOrNull(actual[i]);
    const want = canonicalJson(expected[i]);
    if (got !== want) fail(`${what}: event ${i + 1} of ${expected.length} differs: expected ${show(expected[i])}, got ${show(actual[i])}.`);
  }
  if (actual.length !== expected.length) {
    const revisions = actual.map((event) => (event as { revision?: unknown } | null)?.revision);
    fail(`${what}: expected ${expected.length} events, got ${actual.length} (revisions ${show(revisions)}).`);
  }
}

export async function checkHead(storage: RunStorage, streamId: string, expected: number, what: string): Promise<void> {
  const head = await expectOk(() => storage.head(streamId), `${what}: head(${streamId})`);
  check(head === expected, `${what}: head(${streamId}) should be ${expected}, got ${show(head)}.`);
}

/** Fails unless the stream's head and its whole content are exactly `expected`. */
export async function checkStream(storage: RunStorage, streamId: string, expected: readonly StoredEvent[], what: string): Promise<void> {
  await checkHead(storage, streamId, expected.length, what);
  const events = await expectOk(() => collect(() => storage.read(streamId)), `${what}: read(${streamId})`);
  checkEvents(events, expected, `${what}: read(${streamId})`);
}

export async function readEvents(storage: RunStorage, streamId: string, options: ReadOptions | undefined, what: string): Promise<unknown[]> {
  return expectOk(() => collect(() => storage.read(streamId, options)), what);
}

export async function listStreams(storage: RunStorage, what: string): Promise<Map<string, unknown>> {
  const entries = await expectOk(() => collect(() => storage.streams()), what);
  const heads = new Map<string, unknown>();
  for (const entry of entries) {
    const { streamId, head } = (entry ?? {}) as { streamId?: unknown; head?: unknown };
    check(typeof streamId === 'string', `${what}: an entry has no string streamId: ${show(entry)}.`);
    check(!heads.has(streamId as string), `${what}: stream ${show(streamId)} is listed twice.`);
    check(typeof head === 'number' && Number.isSafeInteger(head) && head >= 1, `${what}: stream ${show(streamId)} has head ${show(head)}, expected a positive integer.`);
    heads.set(streamId as string, head);
  }
  return heads;
}

/**
 * What one case gets: instances it opens (closed by the runner afterwards, whatever happens) and
 * stream ids and namespaces of its own, unique to this run, so cases never see each other's data.
 */
export class CaseContext {
  readonly opened: RunStorage[] = [];
  private streamCount = 0;

  constructor(
    private readonly create: CreateStorage,
    private readonly token: string,
    readonly caseName: string,
    readonly seed: number,
    /** How long the case may take; cases that wait for something derive their own waits from it. */
    readonly caseTimeoutMs = 120_000,
  ) {}

  /** A fresh instance over the shared backing data. */
  async open(options?: StorageOptions): Promise<RunStorage> {
    let storage: unknown;
    try {
      storage = await (options === undefined ? this.create() : this.create(options));
    } catch (error) {
      return fail(`create(${options === undefined ? '' : show(options)}) failed: ${describeError(error)}.`);
    }
    const methods = ['head', 'read', 'append', 'streams', 'close'] as const;
    if (typeof storage !== 'object' || storage === null || methods.some((name) => typeof (storage as Record<string, unknown>)[name] !== 'function')) {
      return fail(`create() returned ${show(storage)}, which is not a RunStorage (needs ${methods.join(', ')}).`);
    }
    this.opened.push(storage as RunStorage);
    return storage as RunStorage;
  }

  /** Fails unless `create(options)` throws or rejects with a storage error `code`; an instance it returns anyway is closed after the case. */
  async expectOpenRefused(options: StorageOptions, code: StorageErrorCode, what: string): Promise<void> {
    await expectRejects(async () => {
      const storage: unknown = await this.create(options);
      if (typeof (storage as { close?: unknown } | null)?.close === 'function') this.opened.push(storage as RunStorage);
      return 'an instance';
    }, code, what);
  }

  /** A stream id no other case or run uses. */
  stream(label = 's'): string {
    this.streamCount++;
    return `conf-${this.token}-${this.caseName}-${label}-${this.streamCount}`.slice(0, 128);
  }

  /** A namespace no other case or run uses. */
  namespace(label: string): string {
    return `conf-${this.token}-${this.caseName}-${label}`.slice(0, 128);
  }
}
