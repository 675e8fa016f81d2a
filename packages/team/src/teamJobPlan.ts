import type { GraphDefinition, GraphValidationIssue } from '@roundtable/graph';
import { GraphValidationError } from '@roundtable/graph';
import { TeamJobDataSchema, TeamJobNodeDataSchema } from './teamJobSchemas.js';
import type { TeamJobData, TeamJobNodeData } from './teamJobSchemas.js';

export const TEAM_JOB_GRAPH_KIND = 'team-job';
export const TEAM_JOB_GRAPH_VERSION = 1;
/** The issue code of a team-job definition that does not fit the graph type. */
export const INVALID_TEAM_JOB = 'INVALID_TEAM_JOB';

/** The node (and dispatch position) of the integration step. */
export const INTEGRATION_NODE_ID = 'integration';
/** The node (and dispatch position) of a callback review: `resume` it with the person's answer. */
export const CALLBACK_REVIEW_NODE_ID = 'review';

export const agentNodeId = (name: string): string => `agent/${name}`;
export const reviewerNodeId = (name: string): string => `review/${name}`;
export const agentBranch = (runId: string, name: string): string => `roundtable/${runId}/agent/${name}`;
export const integrationBranch = (runId: string): string => `roundtable/${runId}/integration`;

/** The prompt every agent gets (SPEC §19). */
export function agentPrompt(task: string, role: string, brief: string): string {
  return `Task: ${task}\n\nRole: ${role}\n\nBrief: ${brief}`;
}

export interface PlannedAgent {
  readonly nodeId: string;
  readonly name: string;
  readonly role: string;
  readonly brief: string;
  readonly branch: string;
}

export interface PlannedReviewer {
  readonly nodeId: string;
  readonly name: string;
}

/** A team-job definition, checked and indexed for the reducer and `decide`. */
export interface TeamJobPlan {
  readonly data: TeamJobData;
  readonly agents: readonly PlannedAgent[];
  /** The integration node's id, or null when the job does not integrate. */
  readonly integration: string | null;
  readonly reviewers: readonly PlannedReviewer[];
  /** The callback review node's id, or null. */
  readonly callback: string | null;
  readonly kinds: ReadonlyMap<string, TeamJobNodeData['kind']>;
}

function issue(path: string, message: string): GraphValidationIssue {
  return { code: INVALID_TEAM_JOB, path, message };
}

function zodIssues(path: string, error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): GraphValidationIssue[] {
  return error.issues.map((entry) => issue(`${path}${entry.path.map((key) => `/${String(key)}`).join('')}`, entry.message));
}

/** What the node at `index` must be, given the job's data: agents, then integration, then review nodes. */
function expectedNodeId(node: TeamJobNodeData): string {
  switch (node.kind) {
    case 'agent':
      return agentNodeId(node.name);
    case 'integration':
      return INTEGRATION_NODE_ID;
    case 'reviewer':
      return reviewerNodeId(node.name);
    case 'callback':
      return CALLBACK_REVIEW_NODE_ID;
  }
}

const ORDER: Record<TeamJobNodeData['kind'], number> = { agent: 0, integration: 1, reviewer: 2, callback: 2 };

/**
 * Checks a team-job definition beyond the generic graph rules and indexes it. Throws
 * `GraphValidationError` (issue code INVALID_TEAM_JOB) listing every problem.
 */
export function planTeamJob(definition: GraphDefinition): TeamJobPlan {
  const issues: GraphValidationIssue[] = [];
  const parsedData = TeamJobDataSchema.safeParse(definition.data);
  if (!parsedData.success) issues.push(...zodIssues('/data', parsedData.error));
  if (definition.edges.length > 0) issues.push(issue('/edges', 'A team job has no edges: its steps run in a fixed order.'));

  const nodes: { id: string; data: TeamJobNodeData }[] = [];
  definition.nodes.forEach((node, index) => {
    const parsed = TeamJobNodeDataSchema.safeParse(node.data);
    if (!parsed.success) {
      issues.push(...zodIssues(`/nodes/${index}/data`, parsed.error));
      return;
    }
    if (node.id !== expectedNodeId(parsed.data)) issues.push(issue(`/nodes/${index}/id`, `A ${parsed.data.kind} node must have id "${expectedNodeId(parsed.data)}".`));
    const previous = nodes.at(-1);
    if (previous !== undefined && ORDER[previous.data.kind] > ORDER[parsed.data.kind]) {
      issues.push(issue(`/nodes/${index}`, 'Nodes are agents, then the integration, then the review.'));
    }
    nodes.push({ id: node.id, data: parsed.data });
  });
  if (issues.length > 0 || !parsedData.success) throw new GraphValidationError(issues);

  const data = parsedData.data;
  const agents: PlannedAgent[] = [];
  const reviewers: PlannedReviewer[] = [];
  let integration: string | null = null;
  let callback: string | null = null;
  for (const node of nodes) {
    if (node.data.kind === 'agent') {
      agents.push({ nodeId: node.id, name: node.data.name, role: node.data.role, brief: node.data.brief, branch: agentBranch(data.runId, node.data.name) });
    } else if (node.data.kind === 'integration') integration = node.id;
    else if (node.data.kind === 'reviewer') reviewers.push({ nodeId: node.id, name: node.data.name });
    else callback = node.id;
  }
  if (agents.length === 0) issues.push(issue('/nodes', 'A team job has at least one agent.'));
  if (data.integrate !== (integration !== null)) issues.push(issue('/nodes', 'A job that integrates has exactly one integration node; one that does not has none.'));
  const review = data.review;
  if (review === null && (reviewers.length > 0 || callback !== null)) issues.push(issue('/nodes', 'Review nodes need data.review.'));
  if (review !== null && !data.integrate) issues.push(issue('/data/review', 'A review runs after integration: it needs integrate true.'));
  if (review?.kind === 'panel') {
    if (reviewers.length === 0 || callback !== null) issues.push(issue('/nodes', 'A panel review has reviewer nodes only.'));
    if (review.threshold > reviewers.length) issues.push(issue('/data/review/threshold', 'The threshold is at most the number of reviewers.'));
  }
  if (review?.kind === 'callback' && (callback === null || reviewers.length > 0)) issues.push(issue('/nodes', 'A callback review has exactly one review node.'));
  if (issues.length > 0) throw new GraphValidationError(issues);

  return {
    data,
    agents,
    integration,
    reviewers,
    callback,
    kinds: new Map(nodes.map((node) => [node.id, node.data.kind])),
  };
}
