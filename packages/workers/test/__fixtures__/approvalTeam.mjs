// The one-member team of the answer tests: its member waits for approval before it acts.
import { compileGraph, teamGraphType } from '@roundtable/graph';

export function approvalTeamGraph() {
  return compileGraph(teamGraphType, {
    id: 'approval-team',
    definitionVersion: 1,
    data: { task: 'Ship after approval.', globalConcurrency: 1, maxTurnsPerMember: 1 },
    nodes: [{ id: 'shipper', data: { role: 'shipper', brief: 'Wait for approval.' } }],
    edges: [],
  });
}
