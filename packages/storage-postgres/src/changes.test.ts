import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followStream } from '@roundtable/storage';
import type { TestDatabase } from '@roundtable/test-utils';
import { createPostgresStorage } from './index.js';
import type { PostgresStorage } from './index.js';
import { newEvent, rawClient, settledConnections, testDatabase } from '../test/__fixtures__/helpers.js';

let database: TestDatabase;
let raw: pg.Client;
beforeAll(async () => {
  database = await testDatabase('changes');
  raw = await rawClient(database.url);
});
afterAll(async () => {
  await raw.end();
  await database.drop();
});

/** Pulls hints from `changes` one at a time on demand. */
function hints(storage: PostgresStorage, streamId: string, signal: AbortSignal) {
  const iterator = storage.changes(streamId, signal)[Symbol.asyncIterator]();
  return { next: () => iterator.next() };
}

describe('changes(): hints by LISTEN/NOTIFY', () => {
  it('yields once when listening starts, then for each commit by any instance to that stream only', async () => {
    const follower = createPostgresStorage({ connectionString: database.url, namespace: 'a' });
    const writer = createPostgresStorage({ connectionString: database.url, namespace: 'a' });
    const otherNamespace = createPostgresStorage({ connectionString: database.url, namespace: 'b' });
    const controller = new AbortController();
    try {
      await writer.append('watched', 0, [newEvent('w1')]);
      const stream = hints(follower, 'watched', controller.signal);
      expect(await stream.next()).toEqual({ done: false, value: undefined });
      // Appends elsewhere (another stream, the same stream id in another namespace) say nothing;
      // the append to the watched stream comes last, so the next hint can only be about it.
      await writer.append('unwatched', 0, [newEvent('u1')]);
      await otherNamespace.append('watched', 0, [newEvent('o1')]);
      const before = await follower.head('watched');
      const next = stream.next();
      await writer.append('watched', 1, [newEvent('w2')]);
      expect(await next).toEqual({ done: false, value: undefined });
      expect(await follower.head('watched')).toBe(before + 1);
      const pending = stream.next();
      controller.abort();
      expect(await pending).toEqual({ done: true, value: undefined });
      // With nobody subscribed, the dedicated connection is closed again.
      expect(await settledConnections(raw, database.name, 'roundtable-listen', 0)).toEqual([]);
    } finally {
      await Promise.all([follower.close(), writer.close(), otherNamespace.close()]);
    }
  });

  it('reconnects when its connection is cut, and yields once afterwards so a follower catches up', async () => {
    await settledConnections(raw, database.name, 'roundtable-listen', 0);
    const follower = createPostgresStorage({ connectionString: database.url });
    const writer = createPostgresStorage({ connectionString: database.url });
    const controller = new AbortController();
    try {
      const stream = hints(follower, 'cut', controller.signal);
      await stream.next();
      const [pid] = await settledConnections(raw, database.name, 'roundtable-listen', 1);
      expect(pid).toBeDefined();
      await raw.query('SELECT pg_terminate_backend($1)', [pid]);
      // Written while the listener is away: no notification can reach it, the reconnect hint must.
      await writer.append('cut', 0, [newEvent('while-away')]);
      expect(await stream.next()).toEqual({ done: false, value: undefined });
      // The cut backend may take a moment to leave the server's list.
      const pids = await settledConnections(raw, database.name, 'roundtable-listen', 1);
      expect(pids).toHaveLength(1);
      expect(pids[0]).not.toBe(pid);
      // And it still hears later commits.
      const next = stream.next();
      await writer.append('cut', 1, [newEvent('after')]);
      expect(await next).toEqual({ done: false, value: undefined });
      controller.abort();
    } finally {
      await Promise.all([follower.close(), writer.close()]);
    }
  });

  it('ends every subscription when the storage closes, and an aborted signal yields nothing', async () => {
    const storage = createPostgresStorage({ connectionString: database.url });
    const aborted = new AbortController();
    aborted.abort();
    const none = hints(storage, 'x', aborted.signal);
    expect(await none.next()).toEqual({ done: true, value: undefined });
    const live = hints(storage, 'x', new AbortController().signal);
    await live.next();
    const pending = live.next();
    await storage.close();
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it('several subscriptions share one connection', async () => {
    // Listeners of earlier tests in this file may not have left the server yet.
    await settledConnections(raw, database.name, 'roundtable-listen', 0);
    const storage = createPostgresStorage({ connectionString: database.url });
    const controller = new AbortController();
    try {
      const streams = ['one', 'two', 'three'].map((id) => hints(storage, id, controller.signal));
      await Promise.all(streams.map((stream) => stream.next()));
      expect(await settledConnections(raw, database.name, 'roundtable-listen', 1)).toHaveLength(1);
      const waiting = streams.map((stream) => stream.next());
      for (const [i, id] of ['one', 'two', 'three'].entries()) await storage.append(id, 0, [newEvent(`e${i}`)]);
      expect(await Promise.all(waiting)).toEqual([0, 1, 2].map(() => ({ done: false, value: undefined })));
      controller.abort();
    } finally {
      await storage.close();
    }
  });
});

describe('changedStreams(): every stream of the namespace', () => {
  it('yields all once listening starts, then the ids of streams with commits by any instance, batched, never another namespace', async () => {
    await settledConnections(raw, database.name, 'roundtable-listen', 0);
    const watcher = createPostgresStorage({ connectionString: database.url, namespace: 'wide' });
    const writer = createPostgresStorage({ connectionString: database.url, namespace: 'wide' });
    const otherNamespace = createPostgresStorage({ connectionString: database.url, namespace: 'narrow' });
    const controller = new AbortController();
    try {
      const iterator = watcher.changedStreams(controller.signal)[Symbol.asyncIterator]();
      expect(await iterator.next()).toEqual({ done: false, value: { all: true, streamIds: [] } });
      // One stream of the same id in another namespace first: it must never show up.
      await otherNamespace.append('never', 0, [newEvent('n1')]);
      const seen = new Set<string>();
      const wanted = ['s-1', 's-2', 's-3'];
      for (const [i, id] of wanted.entries()) await writer.append(id, 0, [newEvent(`s${i}`)]);
      await writer.append('s-1', 1, [newEvent('s-1b')]);
      while (wanted.some((id) => !seen.has(id))) {
        const batch = (await iterator.next()).value as { all: boolean; streamIds: string[] };
        expect(batch.all).toBe(false);
        // Each id once per batch.
        expect(new Set(batch.streamIds).size).toBe(batch.streamIds.length);
        for (const id of batch.streamIds) seen.add(id);
      }
      expect([...seen].sort()).toEqual(wanted);
      // A subscription to one stream and one to the namespace share the connection.
      const one = hints(watcher, 's-2', controller.signal);
      const pendingOne = one.next();
      expect(await settledConnections(raw, database.name, 'roundtable-listen', 1)).toHaveLength(1);

      const [pid] = await settledConnections(raw, database.name, 'roundtable-listen', 1);
      await raw.query('SELECT pg_terminate_backend($1)', [pid]);
      // After a reconnect: all again, since commits meanwhile were not announced.
      for (;;) {
        const batch = (await iterator.next()).value as { all: boolean; streamIds: string[] };
        if (batch.all) break;
      }
      const pending = iterator.next();
      controller.abort();
      expect(await pending).toEqual({ done: true, value: undefined });
      // The reconnect woke the one-stream subscription too; after the abort it ends.
      expect(await pendingOne).toEqual({ done: false, value: undefined });
      expect(await one.next()).toEqual({ done: true, value: undefined });
      // With nobody subscribed, the dedicated connection is closed again.
      expect(await settledConnections(raw, database.name, 'roundtable-listen', 0)).toEqual([]);
    } finally {
      await Promise.all([watcher.close(), writer.close(), otherNamespace.close()]);
    }
  });
});

describe('followStream over PostgreSQL', () => {
  it('delivers appends from another instance by the NOTIFY hint alone (polling set to an hour)', async () => {
    const follower = createPostgresStorage({ connectionString: database.url, namespace: 'follow' });
    const writer = createPostgresStorage({ connectionString: database.url, namespace: 'follow' });
    const controller = new AbortController();
    try {
      await writer.append('followed', 0, [newEvent('f1')]);
      const seen: number[] = [];
      let arrived = () => {};
      const following = (async () => {
        for await (const event of followStream(follower, 'followed', { signal: controller.signal, pollIntervalMs: 3_600_000 })) {
          seen.push(event.revision);
          arrived();
          // Leave the loop rather than abort: followStream checks an abort only between waits.
          if (seen.length === 6) break;
        }
      })();
      const until = (count: number) => new Promise<void>((resolve) => (arrived = () => seen.length >= count && resolve()));
      const first = until(1);
      if (seen.length < 1) await first;
      for (let revision = 1; revision < 6; revision++) {
        const next = until(revision + 1);
        await writer.append('followed', revision, [newEvent(`f${revision + 1}`)]);
        await next;
      }
      await following;
      expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      controller.abort();
      await Promise.all([follower.close(), writer.close()]);
    }
  });
});
