import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as core from '@roundtable/core';
import * as graph from '@roundtable/graph';
import * as storage from '@roundtable/storage';
import * as storageMemory from '@roundtable/storage-memory';
import * as scheduler from '@roundtable/scheduler';
import * as rooms from '@roundtable/rooms';
import * as contracts from '@roundtable/contracts';
import { seedTeam } from '@roundtable/test-utils';
import * as runtime from './index.js';
import { compileGraph, createGraphExecutor, createMemoryStorage, projectTeamRooms, teamGraphType, teamMembers, teamOutput, teamResultContract } from './index.js';

/** The packages the README says the facade covers, each as its own entry exports it. */
const covered: Record<string, Record<string, unknown>> = {
  '@roundtable/core': core,
  '@roundtable/graph': graph,
  '@roundtable/storage': storage,
  '@roundtable/storage-memory': storageMemory,
  '@roundtable/scheduler': scheduler,
  '@roundtable/rooms': rooms,
  '@roundtable/contracts': contracts,
};

describe('@roundtable/runtime', () => {
  it('exports every public name of every package it covers, as the same value, and nothing else', () => {
    const facade = runtime as Record<string, unknown>;
    const everyName = new Set<string>();
    for (const [name, entry] of Object.entries(covered)) {
      const missing = Object.keys(entry).filter((key) => !(key in facade));
      expect(missing, `${name} exports these, the facade does not`).toEqual([]);
      const different = Object.keys(entry).filter((key) => facade[key] !== entry[key]);
      expect(different, `the facade's value differs from ${name}'s`).toEqual([]);
      for (const key of Object.keys(entry)) everyName.add(key);
    }
    expect(Object.keys(facade).filter((key) => !everyName.has(key))).toEqual([]);
    // The guards of every error class are among them, contracts' included.
    for (const guard of ['isRoundtableError', 'isJsonValueError', 'isGraphValidationError', 'isGraphExecutionError', 'isStorageError', 'isRoomsError', 'isResultContractError']) {
      expect(typeof facade[guard], guard).toBe('function');
    }
  });

  it('re-exports the public API of the packages it gathers', () => {
    const names = [
      'assertJson', 'canonicalJson', 'digest', 'isIdentifier', 'isRoundtableError', 'RoundtableError', 'JsonValueError',
      'compileGraph', 'teamGraphType', 'teamMessages', 'teamMemberStates', 'teamPosition', 'findJsonProblem', 'RunRecordFolder', 'GraphValidationError', 'GraphExecutionError',
      'StorageError', 'StorageErrorCodes', 'isStorageError',
      'createMemoryStorage', 'createMemoryBacking',
      'createGraphExecutor', 'loadRunDefinition', 'AttemptFailureCodes', 'teamMembers', 'teamOutput', 'teamMemberResult', 'DEFAULT_RETRY_CODES',
      'projectTeamRooms', 'escapeRoomField', 'formatRoomLine',
      'followTeamRooms', 'isRoomsError', 'RoomsError', 'roomIndexFileName',
      'followStream',
      'defineResultContract', 'teamResultContract', 'ResultContractError',
    ];
    for (const name of names) expect(runtime, name).toHaveProperty(name);
    expect(runtime).not.toHaveProperty('runStorageConformance');
    // Adapter authors' helpers live at @roundtable/storage/adapter, outside the facade.
    for (const name of ['prepareAppend', 'resolveAgainstHead', 'changeHints', 'decodeStoredEventRow']) expect(runtime, name).not.toHaveProperty(name);
  });

  it('runs, replays and projects the seed conversation with one import', async () => {
    const graph = compileGraph(teamGraphType, seedTeam());
    const nodes = teamMembers(graph, {
      writer: {
        run: ({ input }) =>
          input.result === null
            ? { summary: 'draft', posts: [{ roomId: 'review', text: 'Review please.', mentions: ['reviewer'] }] }
            : { summary: `final: ${input.messages.at(-1)!.text}` },
        contract: teamResultContract(graph, 'writer'),
      },
      reviewer: () => ({ summary: 'ok', posts: [{ roomId: 'review', text: 'Ship it.', mentions: ['writer'] }] }),
    });
    const storage = createMemoryStorage();
    const result = await (await createGraphExecutor({ runId: 'run-1', graph, storage, nodes })).run();
    expect(teamOutput(result)?.agents[0]!.result!.summary).toBe('final: Ship it.');
    const directory = await mkdtemp(join(tmpdir(), 'runtime-'));
    try {
      const { files } = await projectTeamRooms({ storage, runId: 'run-1', directory });
      expect(await readFile(files[0]!.path, 'utf8')).toBe('writer [team/writer/1/0] @reviewer: Review please.\nreviewer [team/reviewer/1/0] @writer: Ship it.\n');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('projects a run with retried attempts: the room projector folds graph:node-retried, and only the successful turn posts', async () => {
    const graph = compileGraph(teamGraphType, {
      id: 'retry-team',
      definitionVersion: 1,
      data: { task: 't', globalConcurrency: 1, maxTurnsPerMember: 1, communication: { rooms: [{ id: 'desk', members: ['model'] }], tailMessages: 2 } },
      nodes: [{ id: 'model', data: { role: 'model', brief: 'Answer.' } }],
      edges: [],
    });
    let calls = 0;
    const nodes = teamMembers(graph, {
      model: {
        retry: { maxAttempts: 3 },
        run: ({ previousFailure }) => {
          calls++;
          if (calls === 1) return { summary: 'bad', posts: [{ roomId: 'lobby', text: 'lost', mentions: [] }] };
          if (calls === 2) throw new Error('transient');
          return { summary: 'good', posts: [{ roomId: 'desk', text: `after ${previousFailure?.code ?? 'nothing'}`, mentions: [] }] };
        },
      },
    });
    const storage = createMemoryStorage();
    expect(teamOutput(await (await createGraphExecutor({ runId: 'retry-run', graph, storage, nodes })).run())?.agents[0]?.result?.summary).toBe('good');
    const directory = await mkdtemp(join(tmpdir(), 'runtime-'));
    try {
      const { files, revision } = await projectTeamRooms({ storage, runId: 'retry-run', directory });
      expect(revision).toBe(await storage.head('retry-run'));
      expect(await readFile(files[0]!.path, 'utf8')).toBe('model [team/model/1/0]: after EFFECT_FAILED\n');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
