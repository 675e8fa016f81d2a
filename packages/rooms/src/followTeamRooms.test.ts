import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition, TeamTurnResult } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { followTeamRooms, isRoomsError, roomIndexFileName } from './index.js';

let scratch: string;
let directory: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rooms-follow-'));
  directory = join(scratch, 'rooms');
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const definition: TeamDefinition = {
  id: 'follow-team',
  definitionVersion: 1,
  data: {
    task: 'Talk.',
    globalConcurrency: 1,
    maxTurnsPerMember: 4,
    communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }, { id: 'notes', members: ['writer'] }], tailMessages: 5 },
  },
  nodes: [
    { id: 'writer', data: { role: 'writer', brief: 'Write.' } },
    { id: 'reviewer', data: { role: 'reviewer', brief: 'Review.', initialTurn: false } },
  ],
  edges: [],
};

/** A gate a member's turn waits on, so the test decides when each turn ends. */
function gates(count: number) {
  const list = Array.from({ length: count }, () => {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    return { promise, open };
  });
  return list;
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

async function startConversation() {
  const backing = createMemoryBacking();
  const writerStorage = createMemoryStorage({ backing });
  const followerStorage = createMemoryStorage({ backing });
  const turns = gates(4);
  let writerTurns = 0;
  const nodes = {
    writer: async (): Promise<TeamTurnResult> => {
      writerTurns++;
      await turns[(writerTurns - 1) * 2]!.promise;
      return writerTurns === 1
        ? { summary: 'w1', posts: [{ roomId: 'review', text: 'Please review.', mentions: ['reviewer'] }, { roomId: 'notes', text: 'note to self', mentions: [] }] }
        : { summary: 'w2', posts: [{ roomId: 'review', text: 'Thanks!\n<script>', mentions: [] }] };
    },
    reviewer: async (): Promise<TeamTurnResult> => {
      await turns[1]!.promise;
      return { summary: 'r1', posts: [{ roomId: 'review', text: 'Looks good.', mentions: ['writer'] }] };
    },
  };
  const executor = await createGraphExecutor({ runId: 'run-1', graph: compileGraph(teamGraphType, definition), storage: writerStorage, nodes });
  const running = executor.run();
  // Let the run start so the follower finds a team run.
  await eventually(async () => (await followerStorage.head('run-1')) > 0, 'the run started');
  return { followerStorage, turns, running };
}

describe('followTeamRooms', () => {
  it('appends each new message as a line to the same file, keeps the index current, and resolves on abort', async () => {
    const { followerStorage, turns, running } = await startConversation();
    const controller = new AbortController();
    const following = followTeamRooms({ storage: followerStorage, runId: 'run-1', directory, signal: controller.signal, pollIntervalMs: 20 });
    const indexPath = join(directory, roomIndexFileName(followerStorage.identity, 'run-1'));
    await eventually(async () => (await readdir(directory).catch((): string[] => [])).includes(basename(indexPath)), 'the index exists');
    const index = JSON.parse(await readFile(indexPath, 'utf8'));
    const reviewPath = join(directory, index.rooms[0].file);
    const notesPath = join(directory, index.rooms[1].file);
    expect(index.rooms.map((room: { roomId: string }) => room.roomId)).toEqual(['review', 'notes']);
    expect(await readFile(reviewPath, 'utf8')).toBe('');
    const inode = (await lstat(reviewPath)).ino;

    turns[0]!.open();
    // The turn's lines go to the review file, then to the notes file: wait for the last one, not
    // for the first and then read the other while the follower may still be writing it.
    await eventually(async () => (await readFile(notesPath, 'utf8')).length > 0, 'the first lines');
    expect(await readFile(reviewPath, 'utf8')).toBe('writer [team/writer/1/0] @reviewer: Please review.\n');
    expect(await readFile(notesPath, 'utf8')).toBe('writer [team/writer/1/1]: note to self\n');
    // Appended in place (what `tail -f` needs), not replaced.
    expect((await lstat(reviewPath)).ino).toBe(inode);

    turns[1]!.open();
    await eventually(async () => (await readFile(reviewPath, 'utf8')).split('\n').length === 3, 'the reviewer line');
    expect((await lstat(reviewPath)).ino).toBe(inode);

    // Delete the file: the next line comes with a rebuilt, complete file.
    await unlink(reviewPath);
    turns[2]!.open();
    await eventually(async () => (await readFile(reviewPath, 'utf8').catch(() => '')).split('\n').length === 4, 'the rebuilt file');
    expect(await readFile(reviewPath, 'utf8')).toBe(
      'writer [team/writer/1/0] @reviewer: Please review.\nreviewer [team/reviewer/1/0] @writer: Looks good.\nwriter [team/writer/2/0]: Thanks!\\n<script>\n',
    );
    const result = await running;
    expect(result.kind).toBe('complete');
    const head = await followerStorage.head('run-1');
    await eventually(async () => JSON.parse(await readFile(indexPath, 'utf8')).revision === head, 'the index revision');
    controller.abort();
    const projected = await following;
    expect(projected.revision).toBe(head);
    expect(projected.files).toEqual([
      { roomId: 'review', path: reviewPath },
      { roomId: 'notes', path: notesPath },
    ]);
  });

  it('rebuilds a file replaced by a symlink or edited by someone else, never writing through the link', async () => {
    const { followerStorage, turns, running } = await startConversation();
    const controller = new AbortController();
    const following = followTeamRooms({ storage: followerStorage, runId: 'run-1', directory, signal: controller.signal, pollIntervalMs: 20 });
    const indexPath = join(directory, roomIndexFileName(followerStorage.identity, 'run-1'));
    await eventually(async () => (await readdir(directory).catch((): string[] => [])).includes(basename(indexPath)), 'the index exists');
    const reviewPath = join(directory, JSON.parse(await readFile(indexPath, 'utf8')).rooms[0].file);
    const victim = join(scratch, 'victim.txt');
    await writeFile(victim, 'precious');
    await unlink(reviewPath);
    await symlink(victim, reviewPath);
    turns[0]!.open();
    await eventually(async () => !(await lstat(reviewPath)).isSymbolicLink(), 'the symlink replaced');
    expect(await readFile(victim, 'utf8')).toBe('precious');
    expect(await readFile(reviewPath, 'utf8')).toBe('writer [team/writer/1/0] @reviewer: Please review.\n');

    await writeFile(reviewPath, 'someone else wrote this\n', { flag: 'a' });
    turns[1]!.open();
    await eventually(async () => (await readFile(reviewPath, 'utf8')).includes('Looks good.'), 'the reviewer line');
    expect(await readFile(reviewPath, 'utf8')).toBe('writer [team/writer/1/0] @reviewer: Please review.\nreviewer [team/reviewer/1/0] @writer: Looks good.\n');
    turns[2]!.open();
    await running;
    controller.abort();
    await following;
  });

  it('resolves at once for a signal already aborted, after the projection', async () => {
    const { followerStorage, turns, running } = await startConversation();
    const projected = await followTeamRooms({ storage: followerStorage, runId: 'run-1', directory, signal: AbortSignal.abort() });
    expect(projected.files).toHaveLength(2);
    for (const gate of turns) gate.open();
    await running;
  });

  it('refuses a missing signal and bad options with INVALID_ROOMS_OPTIONS', async () => {
    const storage = createMemoryStorage();
    await expect(followTeamRooms({ storage, runId: 'run-1', directory } as never)).rejects.toSatisfy((error) => isRoomsError(error, 'INVALID_ROOMS_OPTIONS'));
    await expect(followTeamRooms({ storage, runId: 'run-1', directory: '', signal: new AbortController().signal })).rejects.toSatisfy((error) => isRoomsError(error, 'INVALID_ROOMS_OPTIONS'));
    await expect(followTeamRooms(null as never)).rejects.toSatisfy((error) => isRoomsError(error, 'INVALID_ROOMS_OPTIONS'));
  });

  it('reports a folder where the directory should be created as ROOMS_IO_ERROR', async () => {
    const { followerStorage, turns, running } = await startConversation();
    await mkdir(scratch, { recursive: true });
    await writeFile(directory, 'a file, not a folder');
    const error = await followTeamRooms({ storage: followerStorage, runId: 'run-1', directory, signal: new AbortController().signal }).catch((caught: unknown) => caught);
    expect(isRoomsError(error, 'ROOMS_IO_ERROR')).toBe(true);
    for (const gate of turns) gate.open();
    await running;
  });
});
