import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileGraph, runView, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition, TeamTurnResult } from '@roundtable/graph';
import { createGraphExecutor, forkRun } from '@roundtable/scheduler';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { followTeamRooms, projectTeamRooms, roomIndexFileName } from './index.js';

// SPEC 21 for rooms: a fork's room files hold its parent's lines up to the fork point, then its
// own, and a follow of a fork goes on in run revisions.

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rooms-fork-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const definition: TeamDefinition = {
  id: 'fork-team',
  definitionVersion: 1,
  data: { task: 'Talk.', globalConcurrency: 1, maxTurnsPerMember: 4, communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }], tailMessages: 5 } },
  nodes: [
    { id: 'writer', data: { role: 'writer', brief: 'Write.' } },
    { id: 'reviewer', data: { role: 'reviewer', brief: 'Review.', initialTurn: false } },
  ],
  edges: [],
};
const graph = compileGraph(teamGraphType, definition);

const writer = ({ input }: { input: unknown }): TeamTurnResult =>
  (input as { result: unknown }).result === null ? { summary: 'w1', posts: [{ roomId: 'review', text: 'Please review.', mentions: ['reviewer'] }] } : { summary: 'w2', posts: [{ roomId: 'review', text: 'Thanks.', mentions: [] }] };
const reviewer = (verdict: string) => (): TeamTurnResult => ({ summary: verdict, posts: [{ roomId: 'review', text: verdict, mentions: ['writer'] }] });

const FIRST = 'writer [team/writer/1/0] @reviewer: Please review.\n';

describe('rooms of a fork', () => {
  it('projects the prefix\'s lines, and a follow of the fork adds the fork\'s own in run revisions', async () => {
    const storage = createMemoryStorage();
    expect((await (await createGraphExecutor({ runId: 'parent', graph, storage, nodes: { writer, reviewer: reviewer('Approved.') } })).run()).kind).toBe('complete');
    const parentRooms = await projectTeamRooms({ storage, runId: 'parent', directory: join(scratch, 'parent') });
    expect(await readFile(parentRooms.files[0]!.path, 'utf8')).toBe(`${FIRST}reviewer [team/reviewer/1/0] @writer: Approved.\nwriter [team/writer/2/0]: Thanks.\n`);

    // Fork after the writer's first turn: the reviewer is dispatched, not started.
    const events: { type: string; revision: number; payload: { nodeId?: string } }[] = [];
    for await (const event of storage.read('parent')) events.push(event as never);
    const at = events.find((event) => event.type === 'graph:node-attempt-started' && event.payload.nodeId === 'reviewer')!.revision - 1;
    await forkRun({ storage, from: 'parent', at, to: 'fork' });

    const projected = await projectTeamRooms({ storage, runId: 'fork', directory: join(scratch, 'fork') });
    expect(projected.revision).toBe(at + 1);
    expect(await readFile(projected.files[0]!.path, 'utf8')).toBe(FIRST);

    const directory = join(scratch, 'follow');
    const controller = new AbortController();
    const following = followTeamRooms({ storage, runId: 'fork', directory, signal: controller.signal, pollIntervalMs: 10 });
    expect((await (await createGraphExecutor({ runId: 'fork', graph, storage, nodes: { writer, reviewer: reviewer('Rejected.') } })).run()).kind).toBe('complete');
    const head = await runView(storage).head('fork');
    expect(head).toBeGreaterThan(at + 1);
    const index = join(directory, roomIndexFileName(storage.identity, 'fork'));
    for (let tries = 0; (JSON.parse(await readFile(index, 'utf8').catch(() => '{}')) as { revision?: number }).revision !== head; tries++) {
      // A hang guard: the follow rewrites the index at each event that adds lines.
      if (tries > 2_000) throw new Error('the follow never reached the fork\'s head');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const file = join(directory, projected.files[0]!.path.split('/').at(-1)!);
    controller.abort();
    const followed = await following;
    expect(followed.revision).toBe(head);
    expect(await readFile(file, 'utf8')).toBe(`${FIRST}reviewer [team/reviewer/1/0] @writer: Rejected.\nwriter [team/writer/2/0]: Thanks.\n`);
    // The parent's files are its own.
    expect(await readFile(parentRooms.files[0]!.path, 'utf8')).toContain('Approved.');
  });
});
