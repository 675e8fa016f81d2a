import { parseRunStartedEvent } from '@roundtable/graph';
import type { StoredRunDefinition } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';

/**
 * The definition a stored run was started with, read from its first event, or null when the
 * run has no events yet. A first event that is not a valid `graph:run-started` is INVALID_EVENT.
 */
export async function loadRunDefinition(storage: RunStorage, runId: string): Promise<StoredRunDefinition | null> {
  for await (const event of storage.read(runId)) return parseRunStartedEvent(event);
  return null;
}
