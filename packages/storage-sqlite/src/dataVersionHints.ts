import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';

/** How often the hint connection reads `PRAGMA data_version` while someone follows. */
export const DATA_VERSION_POLL_MS = 20;

/**
 * Change hints for one storage instance: its own read-only connection to the file, polling
 * `PRAGMA data_version` (which changes whenever any connection, in any process, commits) while
 * at least one listener is registered. The connection is opened on first use and closed when
 * the last listener leaves or the storage closes. A hint may be spurious (a commit to another
 * stream or namespace); followers read to find out. When the connection cannot be opened, no
 * hint comes and followers poll.
 */
export class DataVersionHints {
  private readonly listeners = new Set<() => void>();
  private connection: BetterSqlite3.Database | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private lastVersion: unknown = null;

  constructor(
    private readonly location: string,
    private readonly busyTimeoutMs: number,
  ) {}

  /** Registers `listener`; returns the function that removes it. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.timer === null) this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  /** Stops polling and closes the hint connection. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    try {
      this.connection?.close();
    } catch {
      // Closing a read-only connection cannot lose anything.
    }
    this.connection = null;
  }

  private start(): void {
    try {
      this.connection = new Database(this.location, { readonly: true, fileMustExist: true, timeout: this.busyTimeoutMs });
      this.lastVersion = this.connection.pragma('data_version', { simple: true });
    } catch {
      this.stop();
      return;
    }
    // Unref'd: the follower's own poll timer is what keeps a process alive while it follows.
    this.timer = setInterval(() => this.poll(), DATA_VERSION_POLL_MS);
    this.timer.unref();
  }

  private poll(): void {
    let version: unknown;
    try {
      version = this.connection?.pragma('data_version', { simple: true });
    } catch {
      // A busy or failing hint connection only delays hints; followers still poll head.
      return;
    }
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    for (const listener of [...this.listeners]) listener();
  }
}
