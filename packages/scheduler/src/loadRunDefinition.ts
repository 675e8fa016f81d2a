import { readRunDefinition } from '@roundtable/graph';
import type { StoredRunDefinition } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';

/**
 * The definition a stored run was started with, read from its first event, or null when the
 * run has no events yet. A first event that is not a valid `graph:run-started` is INVALID_EVENT.
 * (SPEC 6 names it here; it is `readRunDefinition` of `@roundtable/graph` for a `RunStorage`.)
 */
export function loadRunDefinition(storage: RunStorage, runId: string): Promise<StoredRunDefinition | null> {
  return readRunDefinition(storage, runId);
}
