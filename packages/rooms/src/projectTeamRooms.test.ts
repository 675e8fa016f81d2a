import { lstat, mkdtemp, readFile, readdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { GraphType, TeamDefinition, TeamTurnResult } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { RunStorage, StoredEvent } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { escapeRoomField, projectTeamRooms, roomIndexFileName } from './index.js';

let directory: string;
let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rooms-'));
  directory = join(scratch, 'rooms');
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function team(rooms: { id: string; members: string[] }[] | null): TeamDefinition {
  return {
    id: 'room-team',
    definitionVersion: 1,
    data: {
      task: 'Talk.',
      globalConcurrency: 1,
      maxTurnsPerMember: 3,
      ...(rooms === null ? {} : { communication: { rooms, tailMessages: 5 } }),
    },
    nodes: [
      { id: 'writer', data: { role: 'writer', brief: 'Write.' } },
      { id: 'reviewer', data: { role: 'reviewer', brief: 'Review.', initialTurn: false } },
    ],
    edges: [],
  };
}

/** Runs a team whose writer posts `writerPosts` once and whose reviewer answers in `reply`. */
async function runTeam(storage: RunStorage, runId: string, definition: TeamDefinition, writerText: string, roomId: string) {
  let writerTurns = 0;
  const nodes = {
    writer: (): TeamTurnResult => (++writerTurns === 1 ? { summary: 'w', posts: [{ roomId, text: writerText, mentions: ['reviewer'] }] } : { summary: 'done' }),
    reviewer: (): TeamTurnResult => ({ summary: 'r', posts: [{ roomId, text: 'ok', mentions: ['writer'] }] }),
  };
  const result = await (await createGraphExecutor({ runId, graph: compileGraph(teamGraphType, definition), storage, nodes })).run();
  expect(result.kind).toBe('complete');
}

async function readAll(storage: RunStorage, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of storage.read(runId)) events.push(event);
  return events;
}

describe('projectTeamRooms', () => {
  it('writes one line per accepted message, one file per room in declaration order, and never appends', async () => {
    const storage = createMemoryStorage();
    await runTeam(storage, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }, { id: 'quiet', members: ['writer'] }]), 'Please review.', 'review');
    const head = await storage.head('run-1');
    const projected = await projectTeamRooms({ storage, runId: 'run-1', directory });
    expect(projected.revision).toBe(head);
    expect(await storage.head('run-1')).toBe(head);
    expect(projected.files.map((file) => file.roomId)).toEqual(['review', 'quiet']);
    expect(await readFile(projected.files[0]!.path, 'utf8')).toBe(
      'writer [team/writer/1/0] @reviewer: Please review.\nreviewer [team/reviewer/1/0] @writer: ok\n',
    );
    expect(await readFile(projected.files[1]!.path, 'utf8')).toBe('');
    for (const file of projected.files) {
      expect(dirname(file.path)).toBe(directory);
      expect(file.path).toMatch(/roundtable-room-[0-9a-f]{64}\.txt$/);
      expect((await lstat(file.path)).mode & 0o777).toBe(0o600);
    }
  });

  it('writes the run index roundtable-run-<hex>.json naming each room file, replaced atomically on every projection', async () => {
    const storage = createMemoryStorage();
    await runTeam(storage, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }, { id: '../quiet', members: ['writer'] }]), 'hi', 'review');
    const projected = await projectTeamRooms({ storage, runId: 'run-1', directory });
    const name = roomIndexFileName(storage.identity, 'run-1');
    expect(name).toMatch(/^roundtable-run-[0-9a-f]{64}\.json$/);
    const indexPath = join(directory, name);
    expect(JSON.parse(await readFile(indexPath, 'utf8'))).toEqual({
      runId: 'run-1',
      revision: projected.revision,
      rooms: projected.files.map((file) => ({ roomId: file.roomId, file: basename(file.path) })),
    });
    expect((await lstat(indexPath)).mode & 0o777).toBe(0o600);
    expect((await readdir(directory)).sort()).toEqual([name, ...projected.files.map((file) => basename(file.path))].sort());
    // Another run, namespace or store gets another index name.
    expect(roomIndexFileName(storage.identity, 'run-2')).not.toBe(name);
    expect(roomIndexFileName({ ...storage.identity, namespace: 'other' }, 'run-1')).not.toBe(name);
    const before = await readFile(indexPath);
    await projectTeamRooms({ storage, runId: 'run-1', directory });
    expect(await readFile(indexPath)).toEqual(before);
  });

  it('keeps traversal-style and 300-character room ids inside the directory, one line each', async () => {
    const long = 'r'.repeat(300);
    for (const roomId of ['../outside.txt', long]) {
      const storage = createMemoryStorage();
      await runTeam(storage, 'run-1', team([{ id: roomId, members: ['writer', 'reviewer'] }]), 'hello', roomId);
      const { files } = await projectTeamRooms({ storage, runId: 'run-1', directory });
      expect(files).toHaveLength(1);
      expect(dirname(files[0]!.path)).toBe(directory);
      const text = await readFile(files[0]!.path, 'utf8');
      expect(text.split('\n')).toHaveLength(3);
    }
    expect(await readdir(scratch)).toEqual(['rooms']);
  });

  it('escapes newlines, tabs, C1 controls, U+2028/2029 and backslashes', async () => {
    const storage = createMemoryStorage();
    const text = 'a\nb\r\tc\\d\u0000e\u001bf\u007fg\u0085h\u009fi\u2028j\u2029k é😀';
    await runTeam(storage, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }]), text, 'review');
    const { files } = await projectTeamRooms({ storage, runId: 'run-1', directory });
    const first = (await readFile(files[0]!.path, 'utf8')).split('\n')[0]!;
    expect(first).toBe('writer [team/writer/1/0] @reviewer: a\\nb\\r\\tc\\\\d\\u0000e\\u001bf\\u007fg\\u0085h\\u009fi\\u2028j\\u2029k é😀');
    expect(escapeRoomField('plain')).toBe('plain');
  });

  it('replaces a symlink at the target instead of following it, and leaves unrelated files alone', async () => {
    const storage = createMemoryStorage();
    await runTeam(storage, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }]), 'hi', 'review');
    const { files } = await projectTeamRooms({ storage, runId: 'run-1', directory });
    const victim = join(scratch, 'victim.txt');
    await writeFile(victim, 'precious');
    await unlink(files[0]!.path);
    await symlink(victim, files[0]!.path);
    await writeFile(join(directory, 'notes.txt'), 'mine');
    // A temp file of another writer (same naming scheme) is left alone too.
    const foreignTemp = join(directory, `.${basename(files[0]!.path)}.0123456789abcdef.tmp`);
    await writeFile(foreignTemp, 'in progress elsewhere');
    const again = await projectTeamRooms({ storage, runId: 'run-1', directory });
    expect(await readFile(foreignTemp, 'utf8')).toBe('in progress elsewhere');
    expect((await lstat(again.files[0]!.path)).isSymbolicLink()).toBe(false);
    expect(await readFile(victim, 'utf8')).toBe('precious');
    expect(await readFile(join(directory, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('rebuilds a deleted room file byte-identical', async () => {
    const storage = createMemoryStorage();
    await runTeam(storage, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }]), 'hi', 'review');
    const { files } = await projectTeamRooms({ storage, runId: 'run-1', directory });
    const before = await readFile(files[0]!.path);
    await unlink(files[0]!.path);
    const again = await projectTeamRooms({ storage, runId: 'run-1', directory });
    expect(again.files).toEqual(files);
    expect(await readFile(files[0]!.path)).toEqual(before);
  });

  it('never lets two runs, two namespaces or two stores overwrite each other', async () => {
    const rooms = [{ id: 'review', members: ['writer', 'reviewer'] }];
    const backing = createMemoryBacking();
    const a = createMemoryStorage({ backing, namespace: 'a' });
    const b = createMemoryStorage({ backing, namespace: 'b' });
    const other = createMemoryStorage();
    const fs = createFsStorage({ directory: join(scratch, 'record') });
    await runTeam(a, 'run-1', team(rooms), 'from a/run-1', 'review');
    await runTeam(a, 'run-2', team(rooms), 'from a/run-2', 'review');
    await runTeam(b, 'run-1', team(rooms), 'from b/run-1', 'review');
    await runTeam(other, 'run-1', team(rooms), 'from other/run-1', 'review');
    await runTeam(fs, 'run-1', team(rooms), 'from fs/run-1', 'review');
    const paths = [];
    for (const [storage, runId, text] of [[a, 'run-1', 'from a/run-1'], [a, 'run-2', 'from a/run-2'], [b, 'run-1', 'from b/run-1'], [other, 'run-1', 'from other/run-1'], [fs, 'run-1', 'from fs/run-1']] as const) {
      const { files } = await projectTeamRooms({ storage, runId, directory });
      paths.push(files[0]!.path);
      expect(await readFile(files[0]!.path, 'utf8')).toContain(text);
    }
    expect(new Set(paths).size).toBe(5);
    for (const [index, path] of paths.entries()) expect(await readFile(path, 'utf8')).toContain(['a/run-1', 'a/run-2', 'b/run-1', 'other/run-1', 'fs/run-1'][index]);
    await fs.close();
  });

  it('creates nothing, not even the directory, for a team without communication', async () => {
    const storage = createMemoryStorage();
    const graph = compileGraph(teamGraphType, team(null));
    await (await createGraphExecutor({ runId: 'run-1', graph, storage, nodes: { writer: () => ({ summary: 'w' }), reviewer: () => ({ summary: 'r' }) } })).run();
    const projected = await projectTeamRooms({ storage, runId: 'run-1', directory });
    expect(projected).toEqual({ revision: await storage.head('run-1'), files: [] });
    expect(await readdir(scratch)).toEqual([]);
  });

  it('refuses a non-team graph and a wrong type version before any file exists', async () => {
    const otherType: GraphType<number> = {
      kind: 'counter',
      version: 1,
      compile: () => ({ initialState: () => 0, reduce: (s) => s, decide: () => [{ kind: 'complete', output: null }], describe: () => ({}) }),
    };
    const storage = createMemoryStorage();
    const counter = compileGraph(otherType, { id: 'c', definitionVersion: 1, data: {}, nodes: [], edges: [] });
    await (await createGraphExecutor({ runId: 'counter', graph: counter, storage, nodes: {} })).run();
    await expect(projectTeamRooms({ storage, runId: 'counter', directory })).rejects.toMatchObject({ code: 'STORED_GRAPH_MISMATCH' });

    const teamRun = createMemoryStorage();
    await runTeam(teamRun, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }]), 'hi', 'review');
    const events = await readAll(teamRun, 'run-1');
    const forged = createMemoryStorage();
    const first = events[0]!;
    const payload = first.payload as { definition: Record<string, unknown> };
    await forged.append('run-1', 0, [{ ...strip(first), payload: { definition: { ...payload.definition, typeVersion: 2 } } }, ...events.slice(1).map(strip)]);
    await expect(projectTeamRooms({ storage: forged, runId: 'run-1', directory })).rejects.toMatchObject({ code: 'STORED_GRAPH_MISMATCH' });
    await expect(projectTeamRooms({ storage: createMemoryStorage(), runId: 'none', directory })).rejects.toMatchObject({ code: 'STORED_GRAPH_MISMATCH' });
    expect(await readdir(scratch)).toEqual([]);
  });

  it('refuses a version-2 completion with INVALID_EVENT before any file exists', async () => {
    const teamRun = createMemoryStorage();
    await runTeam(teamRun, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }]), 'hi', 'review');
    const events = (await readAll(teamRun, 'run-1')).map(strip);
    const index = events.findIndex((event) => event.type === 'graph:node-completed');
    events[index] = { ...events[index]!, version: 2 };
    const forged = createMemoryStorage();
    await forged.append('run-1', 0, events);
    await expect(projectTeamRooms({ storage: forged, runId: 'run-1', directory })).rejects.toMatchObject({ code: 'INVALID_EVENT' });
    expect(await readdir(scratch)).toEqual([]);
  });

  it('counts a host event after the last graph event in revision', async () => {
    const storage = createMemoryStorage();
    await runTeam(storage, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }]), 'hi', 'review');
    const head = await storage.head('run-1');
    await storage.append('run-1', head, [
      { eventId: 'host-note', type: 'host:note', version: 1, timestamp: '2026-01-01T00:00:00.000Z', correlationId: 'run-1', causationId: null, payload: { note: 'done' } },
    ]);
    const projected = await projectTeamRooms({ storage, runId: 'run-1', directory });
    expect(projected.revision).toBe(head + 1);
  });

  it('projects no message of a turn whose completion the reducer refused', async () => {
    const storage = createMemoryStorage();
    await runTeam(storage, 'run-1', team([{ id: 'review', members: ['writer', 'reviewer'] }]), 'hi', 'review');
    const events = (await readAll(storage, 'run-1')).map(strip);
    // Forge the reviewer's completion to post into a room it does not belong to.
    const index = events.findIndex((event) => event.type === 'graph:node-completed' && (event.payload as { nodeId: string }).nodeId === 'reviewer');
    const payload = events[index]!.payload as Record<string, unknown>;
    events[index] = { ...events[index]!, payload: { ...payload, result: { summary: 'r', posts: [{ roomId: 'review', text: 'bad', mentions: ['stranger'] }] } } };
    const forged = createMemoryStorage();
    await forged.append('run-1', 0, events.slice(0, index + 1));
    const { files } = await projectTeamRooms({ storage: forged, runId: 'run-1', directory });
    expect(await readFile(files[0]!.path, 'utf8')).toBe('writer [team/writer/1/0] @reviewer: hi\n');
  });
});

function strip(event: StoredEvent) {
  const { eventId, type, version, timestamp, correlationId, causationId, payload } = event;
  return { eventId, type, version, timestamp, correlationId, causationId, payload };
}
