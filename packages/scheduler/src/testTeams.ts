// Shared fixtures of the scheduler's tests (not exported from the package).
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition, TeamDispatchInput, TeamTurnResult } from '@roundtable/graph';
import type { NewEvent, StoredEvent } from '@roundtable/storage';
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
