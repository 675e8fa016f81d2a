import { isIdentifier, jsonPointer } from '@roundtable/core';
import { z } from 'zod';
import { GraphErrorCodes, graphIssue } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import { JsonValueSchema, findJsonProblem, hasOwn, isPositiveSafeInteger, isRecord } from './json.js';

const IDENTIFIER_MESSAGE = 'Expected an identifier: a non-empty string equal to its trimmed form, without control characters.';

/** An identifier (see `isIdentifier` in `@roundtable/core`). */
export const IdentifierSchema = z.string().refine(isIdentifier, IDENTIFIER_MESSAGE);

export const GraphNodeSchema = z.strictObject({
  id: IdentifierSchema,
  data: JsonValueSchema,
});

export const GraphEdgeSchema = z.strictObject({
  id: IdentifierSchema,
  source: IdentifierSchema,
  target: IdentifierSchema,
  data: JsonValueSchema,
});

/**
 * The zod form of a graph definition. `compileGraph` does not parse with it: it runs
 * `validateGraphDefinition`, which reports every problem with the stable codes of SPEC §3.
 * The schema is the source of the types and a convenience for hosts that read definitions.
 */
export const GraphDefinitionSchema = z
  .strictObject({
    id: IdentifierSchema,
    definitionVersion: z.number().int().positive(),
    data: JsonValueSchema,
    nodes: z.array(GraphNodeSchema),
    edges: z.array(GraphEdgeSchema),
  })
  .superRefine((definition, context) => {
    for (const issue of crossReferenceIssues(definition.nodes, definition.edges)) {
      context.addIssue({ code: 'custom', message: `${issue.code}: ${issue.message}`, path: pointerTokens(issue.path) });
    }
  });

export type GraphNode = z.infer<typeof GraphNodeSchema>;
export type GraphEdge = z.infer<typeof GraphEdgeSchema>;
export type GraphDefinition = z.infer<typeof GraphDefinitionSchema>;

const DEFINITION_KEYS = ['id', 'definitionVersion', 'data', 'nodes', 'edges'];
const NODE_KEYS = ['id', 'data'];
const EDGE_KEYS = ['id', 'source', 'target', 'data'];

function pointerTokens(path: string): (string | number)[] {
  return path
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((token) => (/^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : token));
}

/** Duplicate ids and edges naming undeclared nodes, for values that already have the right shape. */
function crossReferenceIssues(nodes: readonly { id: string }[], edges: readonly { id: string; source: string; target: string }[]): GraphValidationIssue[] {
  const issues: GraphValidationIssue[] = [];
  const nodeIds = new Set<string>();
  nodes.forEach((node, index) => {
    if (nodeIds.has(node.id)) issues.push(graphIssue(GraphErrorCodes.DUPLICATE_NODE_ID, `/nodes/${index}/id`, `Node id "${node.id}" is declared twice.`));
    nodeIds.add(node.id);
  });
  const edgeIds = new Set<string>();
  edges.forEach((edge, index) => {
    if (edgeIds.has(edge.id)) issues.push(graphIssue(GraphErrorCodes.DUPLICATE_EDGE_ID, `/edges/${index}/id`, `Edge id "${edge.id}" is declared twice.`));
    edgeIds.add(edge.id);
    if (!nodeIds.has(edge.source)) issues.push(graphIssue(GraphErrorCodes.UNKNOWN_SOURCE_NODE, `/edges/${index}/source`, `Edge source "${edge.source}" is not a declared node.`));
    if (!nodeIds.has(edge.target)) issues.push(graphIssue(GraphErrorCodes.UNKNOWN_TARGET_NODE, `/edges/${index}/target`, `Edge target "${edge.target}" is not a declared node.`));
  });
  return issues;
}

function unknownKeyIssues(object: Record<string, unknown>, allowed: readonly string[], path: string): GraphValidationIssue[] {
  return Object.keys(object)
    .filter((key) => !allowed.includes(key))
    .map((key) => graphIssue(GraphErrorCodes.INVALID_DEFINITION, jsonPointer(path, key), `Unknown field "${key}".`));
}

function dataIssues(owner: Record<string, unknown>, path: string): GraphValidationIssue[] {
  const dataPath = `${path}/data`;
  if (!hasOwn(owner, 'data') || owner['data'] === undefined) {
    return [graphIssue(GraphErrorCodes.INVALID_DEFINITION, dataPath, 'Field "data" is required (use null for no data).')];
  }
  const problem = findJsonProblem(owner['data']);
  return problem === null ? [] : [graphIssue(GraphErrorCodes.INVALID_JSON_VALUE, dataPath + problem.path, problem.message)];
}

function idIssues(owner: Record<string, unknown>, path: string, what: string): GraphValidationIssue[] {
  return isIdentifier(owner['id']) ? [] : [graphIssue(GraphErrorCodes.INVALID_ID, `${path}/id`, `${what} id is not an identifier. ${IDENTIFIER_MESSAGE}`)];
}

function nodeIssues(nodes: unknown, declared: Set<string>): GraphValidationIssue[] {
  if (!Array.isArray(nodes)) return [graphIssue(GraphErrorCodes.INVALID_DEFINITION, '/nodes', 'Field "nodes" must be an array.')];
  const issues: GraphValidationIssue[] = [];
  for (let index = 0; index < nodes.length; index++) {
    const path = `/nodes/${index}`;
    const node: unknown = nodes[index];
    if (!isRecord(node)) {
      issues.push(graphIssue(GraphErrorCodes.INVALID_DEFINITION, path, 'A node must be an object { id, data }.'));
      continue;
    }
    issues.push(...idIssues(node, path, 'Node'));
    const id = node['id'];
    if (isIdentifier(id)) {
      if (declared.has(id)) issues.push(graphIssue(GraphErrorCodes.DUPLICATE_NODE_ID, `${path}/id`, `Node id "${id}" is declared twice.`));
      declared.add(id);
    }
    issues.push(...dataIssues(node, path), ...unknownKeyIssues(node, NODE_KEYS, path));
  }
  return issues;
}

function edgeEndIssue(edge: Record<string, unknown>, path: string, end: 'source' | 'target', declared: Set<string>): GraphValidationIssue[] {
  const value = edge[end];
  if (typeof value === 'string' && declared.has(value)) return [];
  const code = end === 'source' ? GraphErrorCodes.UNKNOWN_SOURCE_NODE : GraphErrorCodes.UNKNOWN_TARGET_NODE;
  const shown = typeof value === 'string' ? `"${value}"` : 'value';
  return [graphIssue(code, `${path}/${end}`, `Edge ${end} ${shown} is not a declared node.`)];
}

function edgeIssues(edges: unknown, declared: Set<string>): GraphValidationIssue[] {
  if (!Array.isArray(edges)) return [graphIssue(GraphErrorCodes.INVALID_DEFINITION, '/edges', 'Field "edges" must be an array.')];
  const issues: GraphValidationIssue[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < edges.length; index++) {
    const path = `/edges/${index}`;
    const edge: unknown = edges[index];
    if (!isRecord(edge)) {
      issues.push(graphIssue(GraphErrorCodes.INVALID_DEFINITION, path, 'An edge must be an object { id, source, target, data }.'));
      continue;
    }
    issues.push(...idIssues(edge, path, 'Edge'));
    const id = edge['id'];
    if (isIdentifier(id)) {
      if (seen.has(id)) issues.push(graphIssue(GraphErrorCodes.DUPLICATE_EDGE_ID, `${path}/id`, `Edge id "${id}" is declared twice.`));
      seen.add(id);
    }
    issues.push(
      ...edgeEndIssue(edge, path, 'source', declared),
      ...edgeEndIssue(edge, path, 'target', declared),
      ...dataIssues(edge, path),
      ...unknownKeyIssues(edge, EDGE_KEYS, path),
    );
  }
  return issues;
}

/**
 * Every problem of a candidate graph definition, in document order, with the codes of SPEC §3.
 * An empty list means the value is a `GraphDefinition`.
 */
export function validateGraphDefinition(definition: unknown): GraphValidationIssue[] {
  if (!isRecord(definition)) {
    return [graphIssue(GraphErrorCodes.INVALID_DEFINITION, '', 'A graph definition must be an object { id, definitionVersion, data, nodes, edges }.')];
  }
  const issues: GraphValidationIssue[] = [];
  issues.push(...idIssues(definition, '', 'Graph'));
  if (!isPositiveSafeInteger(definition['definitionVersion'])) {
    issues.push(graphIssue(GraphErrorCodes.INVALID_VERSION, '/definitionVersion', 'Field "definitionVersion" must be a positive safe integer.'));
  }
  issues.push(...dataIssues(definition, ''));
  const declared = new Set<string>();
  issues.push(...nodeIssues(definition['nodes'], declared));
  issues.push(...edgeIssues(definition['edges'], declared));
  issues.push(...unknownKeyIssues(definition, DEFINITION_KEYS, ''));
  if (issues.length > 0) return issues;
  // The field checks above cannot see everything JSON forbids (a lone surrogate in an id,
  // an accessor, a class instance holding the lists): one full walk catches the rest.
  const problem = findJsonProblem(definition);
  return problem === null ? [] : [graphIssue(GraphErrorCodes.INVALID_JSON_VALUE, problem.path, problem.message)];
}
