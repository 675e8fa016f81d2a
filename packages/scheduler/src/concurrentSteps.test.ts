import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDispatchInput } from '@roundtable/graph';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor } from './index.js';
import type { NodeBinding } from './index.js';
import { readAll } from './__fixtures__/testTeams.js';

// Steps may run concurrently on one executor (the worker pool runs a run's jobs on one held
// executor). Each write must still be decided on the fold it is written at: two steps that both
// saw "dispatch this batch" (or "start the run") at one revision write it once. Seen in the
// workers' multi-process test as the same dispatch batch recorded twice, a record no fold takes.

const MEMBERS = ['ana', 'bo', 'cy'];
const graph = compileGraph(teamGraphType, {
  id: 'steps-team',
  definitionVersion: 1,
  data: { task: 'Pass it on.', globalConcurrency: 2, maxTurnsPerMember: 3, communication: { rooms: [{ id: 'all', members: MEMBERS }], tailMessages: 50 } },
  nodes: MEMBERS.map((id, i) => ({ id, data: { role: id, brief: 'Pass it on.', initialTurn: i < 2 } })),
  edges: [],
});
const nodes: Record<string, NodeBinding> = Object.fromEntries(
  MEMBERS.map((self, i) => [
    self,
    ({ input, position }: { input: unknown; position: string }) => {
      const turn = Number(position.split('/').at(-1));
      const next = MEMBERS[(i + 1) % MEMBERS.length]!;
      return turn >= 3 ? { summary: `${self} done` } : { summary: `${self} ${turn}`, posts: [{ roomId: 'all', text: `${self} saw ${(input as TeamDispatchInput).messages.length}`, mentions: [next] }] };
    },
  ]),
);

/** Dispatches per position, and the record folded from scratch (it throws on a record no fold takes). */
async function checked(storage: ReturnType<typeof createMemoryStorage>, runId: string): Promise<Map<string, number>> {
  await createGraphExecutor({ runId, graph, storage, nodes });
  const dispatches = new Map<string, number>();
  for (const event of await readAll(storage, runId)) {
    if (event.type !== 'graph:node-dispatched') continue;
    const position = (event.payload as { position: string }).position;
    dispatches.set(position, (dispatches.get(position) ?? 0) + 1);
  }
  return dispatches;
}

describe('concurrent steps on one executor', () => {
  it('two advance calls at one revision start the run once and dispatch its batch once', async () => {
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: 'twice', graph, storage, nodes });
    // Both decide "start" on the empty fold, then both decide "dispatch" on the started one.
    await Promise.all([executor.advance(), executor.advance()]);
    await Promise.all([executor.advance(), executor.advance()]);
    const events = await readAll(storage, 'twice');
    expect(events.filter((event) => event.type === 'graph:run-started')).toHaveLength(1);
    expect([...(await checked(storage, 'twice')).values()].every((count) => count === 1)).toBe(true);
  });

  it('any number of concurrent steps (advance and runAttempt of every open position) leave a record that folds, each position dispatched once, to the single-step result', async () => {
    const reference = createMemoryStorage();
    const expected = await (await createGraphExecutor({ runId: 'ref', graph, storage: reference, nodes })).run();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 12 }), async (widths) => {
        const storage = createMemoryStorage();
        const executor = await createGraphExecutor({ runId: 'steps', graph, storage, nodes });
        for (let round = 0; round < 40; round++) {
          const next = executor.next();
          if (next.kind !== 'start' && next.kind !== 'dispatch' && next.kind !== 'attempts') break;
          const open = next.kind === 'attempts' ? next.positions : [];
          const width = widths[round % widths.length]!;
          // Every open position's step, plus `width` advance calls, all at once.
          await Promise.all([...open.map((position) => executor.runAttempt(position)), ...Array.from({ length: width }, () => executor.advance())]);
        }
        const dispatches = await checked(storage, 'steps');
        expect([...dispatches.values()].every((count) => count === 1)).toBe(true);
        const result = await (await createGraphExecutor({ runId: 'steps', graph, storage, nodes })).run();
        expect(result).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });
});
