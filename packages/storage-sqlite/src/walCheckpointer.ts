import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Commits by this instance between two requests for a background checkpoint: a ping-pong turn
 * dirties about 9 pages, so about twice as often as SQLite's own 1000-page autocheckpoint, and
 * the worker has copied most of the WAL by the time the writer's own checkpoint comes.
 */
export const COMMITS_PER_CHECKPOINT = 50;
/** Or this much event text committed (about 500 pages of rows), whichever comes first: large batches reach the backstop sooner. */
const TEXT_CHARS_PER_CHECKPOINT = 2 * 1024 * 1024;
/** SQLite's own default: the writing connection checkpoints once the WAL holds this many pages. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
/**
 * While the worker checkpoints, the writing connection still checkpoints itself past this many
 * WAL pages: a background checkpoint runs while commits keep adding pages, so it never finds the
 * WAL wholly copied and SQLite never starts the WAL over; the writer's own checkpoint, which
 * nothing races, copies the pages left and lets the next commit restart the WAL. Each of those
 * still stalls a commit on two syncs, so it comes seldom: the WAL grows to about 64 MiB.
 */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 16_000;

/**
 * The worker, as CommonJS source (run with `eval`, so it needs no file of its own beside the
 * bundle). Its connection uses the writer's `synchronous` level, so a checkpoint syncs the WAL
 * before copying it and the database file after, exactly as the writer's own would. PASSIVE
 * never waits for a lock: it copies what it can and leaves the rest to the next one.
 */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.location, { fileMustExist: true, timeout: 0 });
db.pragma('synchronous = ' + workerData.synchronous);
db.pragma('wal_autocheckpoint = 0');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Another connection is checkpointing, or this one failed: the writer's own checkpoint still runs.
  }
  parentPort.postMessage('checkpointed');
});
`;

export interface WalCheckpointerConfig {
  readonly location: string;
  readonly synchronous: 'full' | 'normal';
}

/**
 * Moves WAL checkpoints off the thread that commits, for `synchronous: 'normal'`. A checkpoint
 * copies the WAL's pages into the database file and syncs both; on the writing connection it
 * stalls the commit that triggers it for milliseconds, and with `'normal'` it is where the WAL
 * is synced at all. Here a worker thread with a connection of its own runs a PASSIVE checkpoint
 * every COMMITS_PER_CHECKPOINT commits of this instance, while the writer goes on; the writer
 * keeps an autocheckpoint of its own as a backstop (BACKSTOP_AUTOCHECKPOINT_PAGES). Durability
 * is unchanged: a commit is synced (or not) by the writer exactly as before, and a checkpoint is
 * SQLite's own, crash-safe from any connection. The worker starts at the first request (an
 * instance that commits little never starts one); if it cannot run, the writer checkpoints
 * alone as SQLite always does.
 *
 * Not for `'full'`: there every commit already waits for a sync of the WAL, and a checkpoint's
 * syncs on another thread add device flushes that those commits queue behind. Measured on this
 * project's machine (interleaved runs of a 10k-turn ping-pong), the worker made `'full'` slower
 * in four pairs of six, so a `'full'` instance checkpoints as SQLite does by default.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;
  private commits = 0;
  private textChars = 0;
  private inFlight = false;
  private stopped = false;

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly config: WalCheckpointerConfig,
  ) {}

  /**
   * Counts a commit of the writing connection (`textChars`: the length of the event texts it
   * wrote); every COMMITS_PER_CHECKPOINT commits or TEXT_CHARS_PER_CHECKPOINT characters, asks
   * for a checkpoint unless one is running.
   */
  committed(textChars: number): void {
    if (this.stopped) return;
    this.commits++;
    this.textChars += textChars;
    if ((this.commits < COMMITS_PER_CHECKPOINT && this.textChars < TEXT_CHARS_PER_CHECKPOINT) || this.inFlight) return;
    this.commits = 0;
    this.textChars = 0;
    this.worker ??= this.start();
    if (this.worker === null) return;
    this.inFlight = true;
    this.worker.postMessage('checkpoint');
  }

  /** Closes the worker's connection and waits for the worker to end; the writer is left as SQLite's default has it. */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.worker = null;
    if (worker === null) return;
    // Referenced while it closes, so the process waits for its connection to be released.
    worker.ref();
    // Only its end is awaited: a failure while it closes (an 'error' event) ends it too.
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    await exited;
  }

  /** The worker, or null (and no more attempts) when one cannot be started: the commit that asked has already succeeded and must not fail. */
  private start(): Worker | null {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), location: this.config.location, synchronous: this.config.synchronous.toUpperCase() },
      });
    } catch {
      this.stopped = true;
      return null;
    }
    // The worker never keeps a process alive: an instance left open must not hold it up.
    worker.unref();
    worker.on('message', () => {
      this.inFlight = false;
    });
    worker.on('error', () => this.giveUp(worker));
    worker.on('exit', () => this.giveUp(worker));
    this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
    return worker;
  }

  /** The worker ended without being asked to: the writer checkpoints alone again, as SQLite does by default. */
  private giveUp(worker: Worker): void {
    if (this.stopped || this.worker !== worker) return;
    this.stopped = true;
    this.worker = null;
    try {
      if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    } catch {
      // Called from the worker's events, where a throw would end the process: the backstop stays.
    }
  }
}
