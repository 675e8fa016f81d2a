// Shared fixtures of the scheduler's tests (not exported from the package).
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition, TeamDispatchInput, TeamTurnResult } from '@roundtable/graph';
import type { NewEvent, RunStorage, StoredEvent } from '@roundtable/storage';
import { delegateStorage } from '@roundtable/storage/adapter';
import { createMemoryStorage } from '@roundtable/storage-memory';
import type { MemoryBacking } from '@roundtable/storage-memory';
import { seedTeam as sharedSeedTeam } from '@roundtable/test-utils';

export { readAll } from '@roundtable/test-utils';

/** The seed's release team (from @roundtable/test-utils), one turn at a time. */
export function seedTeam(overrides: { maxTurnsPerMember?: number; tailMessages?: number } = {}): TeamDefinition {
  return sharedSeedTeam(overrides);
}

export const compileSeed = (overrides?: Parameters<typeof seedTeam>[0]) => compileGraph(teamGraphType, seedTeam(overrides));

export const REVIEW_REPLY = 'Looks good; mention the migration step.';

/** The seed's two members as local functions. */
export const seedNodes = {
  writer: ({ input }: { input: unknown }): TeamTurnResult => {
    const { result, messages } = input as TeamDispatchInput;
    if (result === null) {
      return { summary: 'Draft ready.', posts: [{ roomId: 'review', text: 'Please review the draft.', mentions: ['reviewer'] }] };
    }
    const reply = messages.filter((message) => message.sender === 'reviewer').at(-1);
    return { summary: `Final notes, with the review applied: ${reply?.text ?? '(no reply)'}` };
  },
  reviewer: (): TeamTurnResult => ({ summary: 'Reviewed.', posts: [{ roomId: 'review', text: REVIEW_REPLY, mentions: ['writer'] }] }),
};

/** A deterministic clock and id source, so two runs write identical records. */
export function deterministic(prefix = 'e') {
  let n = 0;
  let t = Date.UTC(2026, 0, 1);
  return { newId: () => `${prefix}-${++n}`, clock: () => (t += 1) };
}

export function dispatchOrder(events: readonly StoredEvent[]): string[] {
  return events.filter((event) => event.type === 'graph:node-dispatched').map((event) => (event.payload as { nodeId: string }).nodeId);
}

export function toNewEvent(event: StoredEvent): NewEvent {
  const { eventId, type, version, timestamp, correlationId, causationId, payload } = event;
  return { eventId, type, version, timestamp, correlationId, causationId, payload };
}

/** A one-member team whose asker pauses before acting (the answer and cancel tests' run). */
export const askTeam: TeamDefinition = {
  id: 'ask-team',
  definitionVersion: 1,
  data: { task: 'Ask first.', globalConcurrency: 1, maxTurnsPerMember: 1, communication: { rooms: [{ id: 'room', members: ['asker'] }], tailMessages: 2 } },
  nodes: [{ id: 'asker', data: { role: 'asker', brief: 'Ask before acting.' } }],
  edges: [],
};

/**
 * A memory storage over `backing` whose every read and append waits for `schedule` (a
 * fast-check scheduler's), which picks the order of racing actors.
 */
export function scheduledStorage(schedule: (label: string) => Promise<unknown>, backing: MemoryBacking): RunStorage {
  const inner = createMemoryStorage({ backing });
  return delegateStorage(inner, {
    append: (streamId, expected, events) => schedule('append').then(() => inner.append(streamId, expected, events)),
    read: (streamId, options) => delayed(schedule('read'), inner.read(streamId, options)),
  });
}

/** `events`, read only once `gate` resolves. */
async function* delayed<T>(gate: Promise<unknown>, events: AsyncIterable<T>): AsyncGenerator<T> {
  await gate;
  yield* events;
}
