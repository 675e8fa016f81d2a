import type { RunStorage } from '@roundtable/storage';
import { CliError } from './cliError.js';
import { openStore } from './openStore.js';
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

/** Opens the store from `--store` or ROUNDTABLE_STORE, runs `work`, and closes it whatever happens. */
export async function withStorage<T>(io: CliIo, options: StoreOptions, work: (storage: RunStorage) => Promise<T>): Promise<T> {
  const store = options.store ?? io.env.ROUNDTABLE_STORE;
  if (store === undefined || store === '') {
    throw new CliError('USAGE', 'No store given: pass --store <fs:DIR | sqlite:FILE | postgres://…> or set ROUNDTABLE_STORE.');
  }
  const storage = await openStore({ store, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) });
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}
