import { runView } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';
import { CliError } from './cliError.js';
import { openStore } from './openStore.js';
import { requireRunHead } from './readRun.js';
import type { ProgressStream } from './progress.js';

/** What a command reads and writes: streams, environment, and the signal that ends a follow (SIGINT, SIGTERM). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: ProgressStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
}

/** The options every command takes. */
export interface StoreOptions {
  readonly store?: string;
  readonly namespace?: string;
  readonly output?: string;
}

/** The exit codes: 0 success, 1 the thing checked is not well, 2 bad usage or an unreadable store. */
export const ExitCodes = { OK: 0, NOT_WELL: 1, USAGE: 2 } as const;

export function println(io: CliIo, text = ''): void {
  io.stdout.write(`${text}\n`);
}

function storeOf(io: CliIo, options: StoreOptions): string {
  const store = options.store ?? io.env.ROUNDTABLE_STORE;
  if (store === undefined || store === '') {
    throw new CliError('USAGE', 'No store given: pass --store <fs:DIR | sqlite:FILE | postgres://…> or set ROUNDTABLE_STORE.');
  }
  return store;
}

/**
 * Every command sees the store through graph's `runView`: a fork reads as its run (the parent's
 * prefix, then its own events) and every revision printed or taken is a run revision (SPEC 21).
 */
async function withOpenStore<T>(store: string, options: StoreOptions, writable: boolean, work: (storage: RunStorage) => Promise<T>): Promise<T> {
  const storage = await openStore({ store, writable, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) });
  try {
    return await work(runView(storage));
  } finally {
    await storage.close();
  }
}

/** Opens the store from `--store` or ROUNDTABLE_STORE read-only, runs `work`, and closes it whatever happens. */
export function withStorage<T>(io: CliIo, options: StoreOptions, work: (storage: RunStorage) => Promise<T>): Promise<T> {
  return withOpenStore(storeOf(io, options), options, false, work);
}

/**
 * For the commands that append (answer, cancel, fork): checks read-only that run `runId` is
 * there (RUN_NOT_FOUND otherwise, having created nothing), then opens the store writable for
 * `work`. A writable open of a namespace nobody wrote to would make it.
 */
export async function withRunForAppend<T>(io: CliIo, options: StoreOptions, runId: string, work: (storage: RunStorage) => Promise<T>): Promise<T> {
  const store = storeOf(io, options);
  await withOpenStore(store, options, false, (storage) => requireRunHead(storage, runId));
  return withOpenStore(store, options, true, work);
}
