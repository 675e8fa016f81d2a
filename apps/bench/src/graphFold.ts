import { GraphEventTypes, compileGraph, teamGraphType } from '@roundtable/graph';
import type { GraphEvent } from '@roundtable/graph';
import { pingPongTeam } from './pingPongTeam.js';

export interface GraphFoldReport {
  turns: number;
  events: number;
  msTotal: number;
  usPerEvent: number;
}

const POST_TEXT = 'ping-pong '.repeat(10);

/**
 * Folds and decides `turns` turns of the ping-pong workload with the team reducer alone (no
 * storage, no executor): one dispatch and one completion event per turn, each completion with
 * one ~100-character post mentioning the other member.
 */
export async function benchGraphFold(turns: number): Promise<GraphFoldReport> {
  const graph = compileGraph(teamGraphType, pingPongTeam(turns));
  let state = graph.initialState();
  let events = 0;
  const started = performance.now();
  for (let turn = 0; turn < turns; turn++) {
    const [command] = graph.decide(state);
    if (command?.kind !== 'dispatch') throw new Error(`Turn ${turn + 1}: expected a dispatch, got ${command?.kind ?? 'nothing'}.`);
    const other = command.nodeId === 'ping' ? 'pong' : 'ping';
    const dispatched: GraphEvent = { type: GraphEventTypes.NODE_DISPATCHED, version: 1, payload: { nodeId: command.nodeId, position: command.position } };
    const completed: GraphEvent = {
      type: GraphEventTypes.NODE_COMPLETED,
      version: 1,
      payload: {
        nodeId: command.nodeId,
        position: command.position,
        result: { summary: `turn ${turn + 1}`, posts: [{ roomId: 'table', text: POST_TEXT, mentions: [other] }] },
      },
    };
    state = graph.reduce(graph.reduce(state, dispatched), completed);
    events += 2;
  }
  const msTotal = performance.now() - started;
  await Promise.resolve();
  return { turns, events, msTotal, usPerEvent: events === 0 ? 0 : (msTotal * 1000) / events };
}
