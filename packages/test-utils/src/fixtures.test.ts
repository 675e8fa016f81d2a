import { chmodSync, existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killAndRecover, lastJsonLine, messageOfType, newBatch, newEvent, packageFixtures, pairTeam, readAll, rejection, revisionsUntil, runKillable, seedTeam, snapshotTree, teamDefinition, tempDirectory } from './index.js';
import { runToEnd } from './workers.js';

describe('seedTeam', () => {
  it('is the seed document’s release team, a fresh object each call, with options for the limits and rooms', () => {
    const team = seedTeam();
    expect(team.nodes.map((node) => node.id)).toEqual(['writer', 'reviewer']);
    expect(team.data).toEqual({ task: 'Write the release notes.', globalConcurrency: 1, maxTurnsPerMember: 2, communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }], tailMessages: 3 } });
    expect(seedTeam()).not.toBe(team);
    team.data.task = 'changed';
    expect(seedTeam().data.task).toBe('Write the release notes.');
    const rooms = [{ id: 'side', members: ['writer'] }];
    expect(seedTeam({ globalConcurrency: 2, maxTurnsPerMember: 4, tailMessages: 1, rooms }).data).toMatchObject({ globalConcurrency: 2, maxTurnsPerMember: 4, communication: { rooms, tailMessages: 1 } });
  });
});

describe('teamDefinition', () => {
  it('puts every member in one room by default, takes null for no rooms, and defaults roles, briefs and limits', () => {
    const team = teamDefinition({ members: [{ id: 'a' }, { id: 'b', initialTurn: false }] });
    expect([team.id, team.definitionVersion, team.edges]).toEqual(['team', 1, []]);
    expect(team.data).toEqual({ task: 'task', globalConcurrency: 10, maxTurnsPerMember: 5, communication: { rooms: [{ id: 'all', members: ['a', 'b'] }], tailMessages: 10 } });
    expect(team.nodes.map((node) => node.data)).toEqual([{ role: 'a-role', brief: 'a-brief' }, { role: 'b-role', brief: 'b-brief', initialTurn: false }]);
    expect(teamDefinition({ members: [{ id: 'a', role: 'r', brief: 'b' }], rooms: null }).data).toEqual({ task: 'task', globalConcurrency: 10, maxTurnsPerMember: 5 });
    expect(pairTeam().nodes.map((node) => node.id)).toEqual(['lead', 'aide']);
    expect(pairTeam().data).toEqual({ task: 't', globalConcurrency: 1, maxTurnsPerMember: 1 });
  });
});

describe('event builders', () => {
  it('builds test events with a fixed timestamp, and numbered batches', () => {
    expect(newEvent('e1')).toEqual({ eventId: 'e1', type: 'test:event', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: 'test', causationId: null, payload: { eventId: 'e1' } });
    expect(newEvent('e2', null, { type: 'test:other', correlationId: 'c' })).toMatchObject({ type: 'test:other', correlationId: 'c', payload: null });
    expect(newBatch('b', 3).map((event) => event.eventId)).toEqual(['b-1', 'b-2', 'b-3']);
  });

  it('reads a whole stream, or what follows a revision', async () => {
    const stored = [1, 2, 3].map((revision) => ({ revision }));
    const storage = {
      async *read(_streamId: string, options: { after?: number } = {}) {
        await Promise.resolve();
        yield* stored.filter((event) => event.revision > (options.after ?? 0));
      },
    };
    expect(await readAll(storage, 's')).toEqual(stored);
    expect(await readAll(storage, 's', 2)).toEqual([{ revision: 3 }]);
  });

  it('revisionsUntil collects the first revisions of a follow, stops it, and drains what it yields after', async () => {
    let stopped = false;
    async function* follow() {
      for (let revision = 1; !stopped; revision++) yield await Promise.resolve({ revision });
    }
    let stops = 0;
    expect(await revisionsUntil(follow(), 2, () => ((stopped = true), stops++))).toEqual([1, 2]);
    expect(stops).toBe(1);
  });
});

describe('rejection', () => {
  it('returns what a promise rejects with, and fails when it resolves', async () => {
    const error = new Error('no');
    expect(await rejection(Promise.reject(error))).toBe(error);
    await expect(rejection(Promise.resolve(1))).rejects.toThrow('expected a rejection');
  });
});

describe('tempDirectory', () => {
  it('makes a real directory and removes it with everything inside', () => {
    const { directory, cleanup } = tempDirectory('test-utils-');
    writeFileSync(join(directory, 'file'), 'x');
    expect(existsSync(join(directory, 'file'))).toBe(true);
    cleanup();
    expect(existsSync(directory)).toBe(false);
  });
});

describe('snapshotTree', () => {
  it('records every directory, file and link with its mode and bytes, and changes when any of them does', () => {
    const { directory, cleanup } = tempDirectory('test-utils-');
    mkdirSync(join(directory, 'a', 'empty'), { recursive: true });
    writeFileSync(join(directory, 'a', 'file'), 'x');
    symlinkSync('a/file', join(directory, 'link'));
    const before = snapshotTree(directory);
    expect(Object.keys(before)).toEqual(['.', 'a', 'a/empty', 'a/file', 'link']);
    expect(before.link).toBe('link -> a/file');
    expect(snapshotTree(join(directory, 'nothing'))).toEqual({ '.': 'missing' });
    const changes: (() => void)[] = [
      () => mkdirSync(join(directory, 'a', 'empty', 'new')),
      () => writeFileSync(join(directory, 'a', 'file'), 'y'),
      () => chmodSync(join(directory, 'a', 'file'), 0o600),
    ];
    for (const change of changes) {
      const earlier = snapshotTree(directory);
      change();
      expect(snapshotTree(directory)).not.toEqual(earlier);
    }
    cleanup();
  });
});

describe('child processes', () => {
  const script = (body: string) => {
    const { directory, cleanup } = tempDirectory('test-utils-child-');
    const path = join(directory, 'child.mjs');
    writeFileSync(path, body);
    return { path, cleanup };
  };

  it('runKillable resolves with the output of a clean exit, kills on a line or after ready, and rejects any other end', async () => {
    const { path, cleanup } = script(`
      process.stdout.write('ready\\n');
      if (process.argv[2] === 'fail') { process.stderr.write('broken'); process.exit(3); }
      if (process.argv[2] === 'line') process.stdout.write('now\\n');
      if (process.argv[2] !== 'done') setInterval(() => {}, 1000);
      else process.stdout.write(JSON.stringify({ value: process.env.EXTRA }) + '\\n');
    `);
    try {
      const done = await runKillable(path, ['done'], { env: { EXTRA: 'x' } });
      expect(done.killed).toBe(false);
      expect(lastJsonLine(done.stdout)).toEqual({ value: 'x' });
      expect((await runKillable(path, ['hang'], { killAfterReadyMs: 5 })).killed).toBe(true);
      expect((await runKillable(path, ['line'], { killOnLine: 'now' })).killed).toBe(true);
      await expect(runKillable(path, ['fail'])).rejects.toThrow(/code 3.*broken/);
    } finally {
      cleanup();
    }
  });

  it('killAndRecover repeats a run until a process finishes, counts kills, and throws the first failed check', async () => {
    const exits = [true, true, false, true, false];
    const finished: number[] = [];
    const counts = await killAndRecover({
      kills: 3,
      attempt: () => Promise.resolve({ stdout: 'ok\n', killed: exits.shift() ?? false }),
      finished: (run) => void finished.push(run),
    });
    expect(counts).toEqual({ kills: 3, runs: 2, killedRuns: 2 });
    expect(finished).toEqual([0, 1]);
    await expect(
      killAndRecover({
        kills: 5,
        lanes: 2,
        attempt: () => Promise.resolve({ stdout: '', killed: false }),
        finished: () => {
          throw new Error('check failed');
        },
      }),
    ).rejects.toThrow('check failed');
  });

  it('messageOfType accepts only messages of that type', () => {
    const ready = messageOfType<{ type: 'ready' }>('ready');
    expect(ready({ type: 'ready' })).toBe(true);
    expect(ready({ type: 'other' })).toBe(false);
    expect(ready(null)).toBe(false);
  });
});

describe('runToEnd', () => {
  it('resumes a waiting run at its first position and a reconcile pause with the value, and returns any other result', async () => {
    const results = [
      { kind: 'waiting', positions: ['p1', 'p2'] },
      { kind: 'pause', position: 'p3', request: { kind: 'reconcile-attempt' } },
      { kind: 'pause', position: 'p4', request: { question: 'ok?' } },
    ];
    const resumed: unknown[] = [];
    const executor = {
      run: () => Promise.resolve(results.shift()!),
      resume: (position: string, options?: { value: unknown }) => {
        resumed.push([position, options?.value]);
        return Promise.resolve(results.shift()!);
      },
    };
    expect(await runToEnd(executor, 'again')).toEqual({ kind: 'pause', position: 'p4', request: { question: 'ok?' } });
    expect(resumed).toEqual([
      ['p1', undefined],
      ['p3', 'again'],
    ]);
  });
});

describe('packageFixtures', () => {
  it('refuses a missing or stale build, and accepts a fresh one', () => {
    const { directory, cleanup } = tempDirectory('test-utils-package-');
    try {
      const { assertFreshBuild } = packageFixtures(directory, 'example');
      mkdirSync(join(directory, 'src'));
      writeFileSync(join(directory, 'src', 'index.ts'), 'export {};');
      expect(() => assertFreshBuild()).toThrow(/dist\/index.js is missing.*@roundtable\/example/);
      mkdirSync(join(directory, 'dist'));
      writeFileSync(join(directory, 'dist', 'index.js'), 'export {};');
      utimesSync(join(directory, 'src', 'index.ts'), new Date(), new Date(Date.now() + 60_000));
      expect(() => assertFreshBuild()).toThrow(/older than src \(index.ts\)/);
      utimesSync(join(directory, 'dist', 'index.js'), new Date(), new Date(Date.now() + 120_000));
      expect(() => assertFreshBuild()).not.toThrow();
    } finally {
      cleanup();
    }
  });
});
