import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

interface Subscriber {
  pending: boolean;
  wake: (() => void) | null;
}

/** A subscriber to every stream of a namespace: the streams that changed since its last batch. */
interface NamespaceSubscriber {
  all: boolean;
  readonly streamIds: Set<string>;
  wake: (() => void) | null;
}

/** What changed in a namespace since the last batch: these streams, or (`all`) possibly any (listening just started or reconnected). */
export interface ChangedStreams {
  readonly all: boolean;
  readonly streamIds: readonly string[];
}

const FIRST_RETRY_MS = 50;
const LAST_RETRY_MS = 2000;

/**
 * One dedicated connection that LISTENs on the storage's channel and hands each notification to
 * the subscribers of its stream. The connection exists while someone subscribes. When it is
 * lost it reconnects (with backoff) and then wakes every subscriber once, since notifications
 * sent while it was away are gone: hints only ever say "read now", correctness comes from read.
 */
export class ChangeListener {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly namespaceSubscribers = new Map<string, Set<NamespaceSubscriber>>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;
  /** How many times a LISTEN connection was established (the first time included). */
  connections = 0;

  constructor(
    private readonly newClient: () => pg.Client,
    private readonly channel: string,
  ) {}

  /** Yields once when listening starts, then once for each batch of notifications about `key`, until `signal` aborts or the listener closes. */
  async *subscribe(key: string, signal: AbortSignal): AsyncGenerator<void> {
    const subscriber: Subscriber = { pending: false, wake: null };
    const take = () => {
      if (!subscriber.pending) return undefined;
      subscriber.pending = false;
      return true;
    };
    for await (const _ of this.deliver(this.subscribers, key, subscriber, signal, take)) yield;
  }

  /**
   * Yields `{ all: true }` when listening starts (and after each reconnect), then the streams of
   * `namespace` that had appends committed since the last batch, until `signal` aborts or the
   * listener closes.
   */
  subscribeNamespace(namespace: string, signal: AbortSignal): AsyncGenerator<ChangedStreams> {
    const subscriber: NamespaceSubscriber = { all: false, streamIds: new Set(), wake: null };
    const take = () => {
      if (!subscriber.all && subscriber.streamIds.size === 0) return undefined;
      const batch = { all: subscriber.all, streamIds: [...subscriber.streamIds] };
      subscriber.all = false;
      subscriber.streamIds.clear();
      return batch;
    };
    return this.deliver(this.namespaceSubscribers, namespace, subscriber, signal, take);
  }

  /**
   * One subscription's life: registered under `key` while it lasts (the listening connection is
   * opened for it), it yields what `take` finds pending each time the subscriber is woken, and
   * unregisters (closing the connection when nobody else wants it) once `signal` aborts, the
   * listener closes or the consumer stops.
   */
  private async *deliver<S extends { wake: (() => void) | null }, T>(subscribers: Map<string, Set<S>>, key: string, subscriber: S, signal: AbortSignal, take: () => T | undefined): AsyncGenerator<T> {
    let set = subscribers.get(key);
    if (set === undefined) subscribers.set(key, (set = new Set()));
    set.add(subscriber);
    const onAbort = () => subscriber.wake?.();
    signal.addEventListener('abort', onAbort);
    this.ensureListening();
    try {
      while (!signal.aborted && !this.closed) {
        const item = take();
        if (item !== undefined) {
          yield item;
          continue;
        }
        await new Promise<void>((resolve) => (subscriber.wake = resolve));
        subscriber.wake = null;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      set.delete(subscriber);
      if (set.size === 0) subscribers.delete(key);
      if (!this.wanted) this.stopListening();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.namespaceSubscribers.values()) for (const subscriber of set) subscriber.wake?.();
    for (const set of this.subscribers.values()) for (const subscriber of set) subscriber.wake?.();
    this.stopListening();
    await this.connecting?.catch(() => undefined);
  }

  private notify(set: Iterable<Subscriber>): void {
    for (const subscriber of set) {
      subscriber.pending = true;
      subscriber.wake?.();
    }
  }

  private notifyAll(): void {
    for (const set of this.subscribers.values()) this.notify(set);
    for (const set of this.namespaceSubscribers.values()) {
      for (const subscriber of set) {
        subscriber.all = true;
        subscriber.wake?.();
      }
    }
  }

  /** A notification's payload is `namespace\nstreamId`: hand the stream to its namespace's subscribers. */
  private notifyNamespace(payload: string): void {
    const cut = payload.indexOf('\n');
    const set = cut < 0 ? undefined : this.namespaceSubscribers.get(payload.slice(0, cut));
    if (set === undefined) return;
    const streamId = payload.slice(cut + 1);
    for (const subscriber of set) {
      subscriber.streamIds.add(streamId);
      subscriber.wake?.();
    }
  }

  private ensureListening(): void {
    if (this.client !== null || this.connecting !== null || this.closed) return;
    this.connecting = this.connectLoop().finally(() => (this.connecting = null));
  }

  private get wanted(): boolean {
    return !this.closed && (this.subscribers.size > 0 || this.namespaceSubscribers.size > 0);
  }

  private async connectLoop(): Promise<void> {
    for (let delay = FIRST_RETRY_MS; this.wanted; delay = Math.min(delay * 2, LAST_RETRY_MS)) {
      const client = this.newClient();
      const lost = () => this.lost(client);
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (message) => {
        if (message.channel !== this.channel || message.payload === undefined) return;
        const set = this.subscribers.get(message.payload);
        if (set !== undefined) this.notify(set);
        this.notifyNamespace(message.payload);
      });
      try {
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
      } catch {
        client.removeAllListeners('end');
        await client.end().catch(() => undefined);
        await sleep(delay);
        continue;
      }
      if (!this.wanted) {
        client.removeAllListeners('end');
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.connections++;
      // Anything appended before LISTEN took effect was not announced: have every follower read.
      this.notifyAll();
      return;
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    if (this.wanted) this.ensureListening();
  }

  private stopListening(): void {
    const client = this.client;
    this.client = null;
    if (client === null) return;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
  }
}
