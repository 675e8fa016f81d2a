import { isStorageError } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import { runNotFound } from './cliError.js';
import type { Progress } from './progress.js';
import { RunInspector } from './runInspector.js';

/**
 * Reads a whole run into a `RunInspector`. A damaged record does not throw: its problem is in
 * the report. A run with no events is RUN_NOT_FOUND.
 */
export async function readRun(storage: RunStorage, runId: string, progress?: Progress): Promise<RunInspector> {
  const inspector = new RunInspector(runId);
  let head: number;
  try {
    head = await storage.head(runId);
  } catch (error) {
    // A head that cannot be read because the record is damaged is a problem of this run, not of the store.
    if (!isStorageError(error, 'CORRUPT_EVENT_STREAM') && !isStorageError(error, 'UNSUPPORTED_ENVELOPE_VERSION')) throw error;
    inspector.fail(error);
    return inspector;
  }
  if (head === 0) throw runNotFound(runId, storage.identity.namespace);
  progress?.grow(head);
  try {
    for await (const event of storage.read(runId)) {
      inspector.apply(event);
      progress?.tick();
    }
    inspector.endOfRead();
  } catch (error) {
    inspector.fail(error);
  }
  return inspector;
}

/** The head of run `runId`; RUN_NOT_FOUND (naming the namespace) when it has no events. */
export async function requireRunHead(storage: RunStorage, runId: string): Promise<number> {
  const head = await storage.head(runId);
  if (head === 0) throw runNotFound(runId, storage.identity.namespace);
  return head;
}
