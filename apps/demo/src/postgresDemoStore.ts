import type { RunStorage } from '@roundtable/runtime';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { createTestDatabase, postgresServer } from '@roundtable/test-utils';

/** Where the demo keeps its record on PostgreSQL, and how to clean up afterwards. */
export interface PostgresDemoStore {
  readonly open: () => RunStorage;
  /** What to print: the database (without user or password) and what happens to it. */
  readonly description: string;
  /** The database's URL without the password when the record outlives the demo (kept, on your server), else null. */
  readonly keptStore: string | null;
  /** Drops the demo's database unless it is kept, and stops (and removes) a server the demo started. */
  dispose(): Promise<void>;
}

/**
 * `ROUNDTABLE_POSTGRES_URL` when it is set, otherwise an embedded PostgreSQL started for this
 * demo. The record goes into a database of its own (`roundtable_demo_<random>`), so running the
 * demo again against the same server never meets an earlier run.
 */
export async function openPostgresDemoStore(keep: boolean): Promise<PostgresDemoStore> {
  const server = await postgresServer();
  try {
    const database = await createTestDatabase(server.url, 'roundtable_demo');
    const open = () => createPostgresStorage({ connectionString: database.url });
    const fate = server.embedded ? 'on an embedded server, removed when the demo ends' : keep ? 'kept' : 'dropped afterwards';
    const keptStore = new URL(database.url);
    keptStore.password = '';
    return {
      open,
      description: `${open().identity.location} (${fate})`,
      keptStore: keep && !server.embedded ? keptStore.toString() : null,
      dispose: async () => {
        try {
          if (!keep) await database.drop();
        } finally {
          await server.stop();
        }
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
