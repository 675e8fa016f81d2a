// The record of one completed fault-team run, which the fuzz files tamper with and damage.
import { createGraphExecutor } from '@roundtable/scheduler';
import type { NewEvent, StoredEvent } from '@roundtable/storage';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { FAULT_RUN_ID, MEMBERS, faultGraph, faultMember } from './faultTeam.js';

export const RECORD_TURNS = 4;
export const recordNodes = Object.fromEntries(MEMBERS.map((id) => [id, faultMember(id, RECORD_TURNS)]));

/** Every event of a completed fault-team run of RECORD_TURNS turns per member. */
export async function completedRecord(): Promise<StoredEvent[]> {
  const storage = createMemoryStorage();
  await (await createGraphExecutor({ runId: FAULT_RUN_ID, graph: faultGraph(RECORD_TURNS), storage, nodes: recordNodes })).run();
  const events: StoredEvent[] = [];
  for await (const event of storage.read(FAULT_RUN_ID)) events.push(event);
  return events;
}

/** A stored event as a new event again, to append it elsewhere. */
export function asNew(event: StoredEvent): NewEvent {
  const { eventId, type, version, timestamp, correlationId, causationId, payload } = event;
  return { eventId, type, version, timestamp, correlationId, causationId, payload };
}
