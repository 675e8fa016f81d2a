import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as runtime from './index.js';
import { compileGraph, createGraphExecutor, createMemoryStorage, projectTeamRooms, teamGraphType, teamResultContract } from './index.js';
import type { TeamDispatchInput, TeamGraphResult } from './index.js';

describe('@roundtable/runtime', () => {
  it('re-exports the public API of the packages it gathers', () => {
    const names = [
      'assertJson', 'canonicalJson', 'digest', 'isIdentifier', 'isRoundtableError', 'RoundtableError', 'JsonValueError',
      'compileGraph', 'teamGraphType', 'teamMessages', 'teamMembers', 'teamPosition', 'RunRecordFolder', 'GraphValidationError', 'GraphExecutionError',
      'StorageError', 'StorageErrorCodes', 'isStorageError',
      'createMemoryStorage', 'createMemoryBacking',
      'createGraphExecutor', 'loadRunDefinition', 'AttemptFailureCodes',
      'projectTeamRooms', 'escapeRoomField', 'formatRoomLine', 'followTeamRooms', 'isRoomsError', 'RoomsError', 'roomIndexFileName',
      'followStream',
      'defineResultContract', 'teamResultContract', 'ResultContractError',
    ];
    for (const name of names) expect(runtime, name).toHaveProperty(name);
    expect(runtime).not.toHaveProperty('runStorageConformance');
  });

  it('runs, replays and projects the seed conversation with one import', async () => {
    const graph = compileGraph(teamGraphType, {
      id: 'release-team',
      definitionVersion: 1,
      data: {
        task: 'Write the notes.',
        globalConcurrency: 1,
        maxTurnsPerMember: 2,
        communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }], tailMessages: 3 },
      },
      nodes: [
        { id: 'writer', data: { role: 'writer', brief: 'Draft.' } },
        { id: 'reviewer', data: { role: 'reviewer', brief: 'Review.', initialTurn: false } },
      ],
      edges: [],
    });
    const nodes = {
      writer: {
        run: ({ input }: { input: unknown }) =>
          (input as TeamDispatchInput).result === null
            ? { summary: 'draft', posts: [{ roomId: 'review', text: 'Review please.', mentions: ['reviewer'] }] }
            : { summary: `final: ${(input as TeamDispatchInput).messages.at(-1)!.text}` },
        contract: teamResultContract(graph, 'writer'),
      },
      reviewer: () => ({ summary: 'ok', posts: [{ roomId: 'review', text: 'Ship it.', mentions: ['writer'] }] }),
    };
    const storage = createMemoryStorage();
    const result = await (await createGraphExecutor({ runId: 'run-1', graph, storage, nodes })).run();
    if (result.kind !== 'complete') throw new Error(`expected complete, got ${result.kind}`);
    expect((result.output as TeamGraphResult).agents[0]!.result!.summary).toBe('final: Ship it.');
    const directory = await mkdtemp(join(tmpdir(), 'runtime-'));
    try {
      const { files } = await projectTeamRooms({ storage, runId: 'run-1', directory });
      expect(await readFile(files[0]!.path, 'utf8')).toBe('writer [team/writer/1/0] @reviewer: Review please.\nreviewer [team/reviewer/1/0] @writer: Ship it.\n');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
