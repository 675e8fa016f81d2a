import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRoundtableError } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { RoomsError, followTeamRooms, isRoomsError, projectTeamRooms, roomFileName, roomIndexFileName } from './index.js';

const definition: TeamDefinition = {
  id: 'io-team',
  definitionVersion: 1,
  data: {
    task: 'Talk.',
    globalConcurrency: 1,
    maxTurnsPerMember: 1,
    communication: { rooms: [{ id: 'a', members: ['writer'] }, { id: 'b', members: ['writer'] }], tailMessages: 5 },
  },
  nodes: [{ id: 'writer', data: { role: 'writer', brief: 'Write.' } }],
  edges: [],
};

let scratch: string;
let storage: RunStorage;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rooms-io-'));
  storage = createMemoryStorage();
  const graph = compileGraph(teamGraphType, definition);
  const nodes = { writer: () => ({ summary: 'w', posts: [{ roomId: 'a', text: 'to a', mentions: [] }, { roomId: 'b', text: 'to b', mentions: [] }] }) };
  await (await createGraphExecutor({ runId: 'run-1', graph, storage, nodes })).run();
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function caught(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  return null;
}

describe('rooms errors (issue 9: no raw Node error escapes)', () => {
  it('a folder at a room file path is ROOMS_IO_ERROR (not raw EISDIR), and nothing else is left behind', async () => {
    const directory = join(scratch, 'eisdir');
    await mkdir(join(directory, roomFileName(storage.identity, 'run-1', 'a')), { recursive: true });
    const error = await caught(() => projectTeamRooms({ storage, runId: 'run-1', directory }));
    expect(isRoomsError(error, 'ROOMS_IO_ERROR')).toBe(true);
    expect(error).toBeInstanceOf(RoomsError);
    expect((error as RoomsError).details).toMatchObject({ path: join(directory, roomFileName(storage.identity, 'run-1', 'a')), operation: 'replace' });
    expect((await readdir(directory)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('an output path that is a regular file, or under one, is ROOMS_IO_ERROR (not raw EEXIST / ENOTDIR)', async () => {
    const file = join(scratch, 'plain-file');
    await writeFile(file, 'x');
    for (const directory of [file, join(file, 'below')]) {
      const error = await caught(() => projectTeamRooms({ storage, runId: 'run-1', directory }));
      expect(isRoomsError(error, 'ROOMS_IO_ERROR')).toBe(true);
      expect((error as RoomsError).details).toMatchObject({ operation: 'create the directory' });
    }
    expect(await readFile(file, 'utf8')).toBe('x');
  });

  it('a folder at the room index path is ROOMS_IO_ERROR', async () => {
    const directory = join(scratch, 'index-dir');
    await mkdir(join(directory, roomIndexFileName(storage.identity, 'run-1')), { recursive: true });
    expect(isRoomsError(await caught(() => projectTeamRooms({ storage, runId: 'run-1', directory })), 'ROOMS_IO_ERROR')).toBe(true);
  });

  it('bad options are INVALID_ROOMS_OPTIONS', async () => {
    for (const options of [null, {}, { storage, runId: 'run-1' }, { storage, runId: 'run-1', directory: '' }, { storage, runId: 'run-1', directory: 'a\0b' }, { storage: {}, runId: 'run-1', directory: 'x' }]) {
      expect(isRoomsError(await caught(() => projectTeamRooms(options as never)), 'INVALID_ROOMS_OPTIONS')).toBe(true);
    }
  });

  // The timeout is a hang guard that grows with the runs: a loaded machine takes several times as long per run.
  const fuzzRuns = process.env.FAULT_SCALE === 'full' ? 2_000 : 150;
  it('any arrangement of files, folders and symlinks in the way ends in the projection or a typed error, never a raw one', { timeout: 30_000 + fuzzRuns * 100 }, async () => {
    const names = [roomFileName(storage.identity, 'run-1', 'a'), roomFileName(storage.identity, 'run-1', 'b'), roomIndexFileName(storage.identity, 'run-1')];
    const obstacle = fc.constantFrom('none', 'file', 'folder', 'folder-with-file', 'symlink-to-folder', 'dangling-symlink', 'symlink-to-file');
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('fresh', 'existing', 'file', 'under-file', 'symlink-to-folder'), fc.tuple(obstacle, obstacle, obstacle), fc.boolean(), async (root, obstacles, follow) => {
        const base = join(scratch, `fuzz-${round++}`);
        await mkdir(base);
        const directory = join(base, 'out');
        if (root === 'file') await writeFile(directory, 'x');
        if (root === 'under-file') await writeFile(join(base, 'file'), 'x');
        if (root === 'symlink-to-folder') {
          await mkdir(join(base, 'real'));
          await symlink(join(base, 'real'), directory);
        }
        if (root === 'existing') await mkdir(directory);
        const target = root === 'under-file' ? join(base, 'file', 'out') : directory;
        if (root === 'existing' || root === 'symlink-to-folder') {
          for (const [index, kind] of obstacles.entries()) {
            const path = join(directory, names[index]!);
            if (kind === 'file') await writeFile(path, 'in the way');
            if (kind === 'folder') await mkdir(path);
            if (kind === 'folder-with-file') {
              await mkdir(path);
              await writeFile(join(path, 'inside'), 'x');
            }
            if (kind === 'symlink-to-folder') await symlink(base, path);
            if (kind === 'dangling-symlink') await symlink(join(base, 'missing'), path);
            if (kind === 'symlink-to-file') {
              await writeFile(join(base, `victim-${index}`), 'precious');
              await symlink(join(base, `victim-${index}`), path);
            }
          }
        }
        const error = await caught(() =>
          follow ? followTeamRooms({ storage, runId: 'run-1', directory: target, signal: AbortSignal.abort() }) : projectTeamRooms({ storage, runId: 'run-1', directory: target }),
        );
        if (error !== null) {
          expect(isRoundtableError(error)).toBe(true);
          expect(isRoomsError(error, 'ROOMS_IO_ERROR')).toBe(true);
        }
        for (const index of [0, 1, 2]) {
          // A symlinked victim is never written through.
          const victim = await readFile(join(base, `victim-${index}`), 'utf8').catch(() => null);
          if (victim !== null) expect(victim).toBe('precious');
        }
      }),
      { numRuns: fuzzRuns },
    );
  });
});
