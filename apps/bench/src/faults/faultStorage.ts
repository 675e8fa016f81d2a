// The adapter parameter of the fault suite's child processes (crashWorker.mjs, faultWorker.mjs):
// one storage kind and its location, from the command line.
import type { RunStorage } from '@roundtable/storage';

/** The adapters a fault worker runs on. */
export type FaultStorageKind = 'memory' | 'fs' | 'sqlite' | 'postgres';

/**
 * Opens the storage a fault worker runs on: `path` is the record directory (fs), the database
 * file (sqlite) or the connection string (postgres); memory ignores it (a reference run).
 */
export async function openFaultStorage(kind: string, path: string): Promise<RunStorage> {
  if (kind === 'memory') return (await import('@roundtable/storage-memory')).createMemoryStorage();
  if (kind === 'fs') return (await import('@roundtable/storage-fs')).createFsStorage({ directory: path });
  if (kind === 'sqlite') return (await import('@roundtable/storage-sqlite')).createSqliteStorage({ filename: path });
  if (kind === 'postgres') return (await import('@roundtable/storage-postgres')).createPostgresStorage({ connectionString: path, maxConnections: 2 });
  throw new Error(`unknown storage kind ${JSON.stringify(kind)}: memory, fs, sqlite or postgres`);
}
