import { isIdentifier } from '@roundtable/core';
import { z } from 'zod';
import { GraphErrorCodes, GraphValidationError } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import { JsonValueSchema, findJsonProblem, isRecord, pointerTokens } from './json.js';
import { schemaIssues, stableIssue } from './schemaIssues.js';
import type { CrossFieldRule, IssueMap, IssueRule } from './schemaIssues.js';

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

/** The rule in words for a value of any shape, so it can run beside zod's field checks. */
function shownEnd(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : 'value';
}

/**
 * Duplicate ids and edges naming undeclared nodes. It runs even when fields are malformed (so
 * one error lists every problem), and so reads `definition` as an unknown value.
 */
const crossReferenceRules: CrossFieldRule = (definition, context) => {
  if (!isRecord(definition)) return;
  const { nodes, edges } = definition;
  const declared = new Set<string>();
  if (Array.isArray(nodes)) {
    nodes.forEach((node: unknown, index) => {
      const id = isRecord(node) ? node['id'] : undefined;
      if (!isIdentifier(id)) return;
      if (declared.has(id)) context.addIssue(stableIssue(GraphErrorCodes.DUPLICATE_NODE_ID, `Node id "${id}" is declared twice.`, ['nodes', index, 'id']));
      declared.add(id);
    });
  }
  if (!Array.isArray(edges)) return;
  const edgeIds = new Set<string>();
  edges.forEach((edge: unknown, index) => {
    if (!isRecord(edge)) return;
    const id = edge['id'];
    if (isIdentifier(id)) {
      if (edgeIds.has(id)) context.addIssue(stableIssue(GraphErrorCodes.DUPLICATE_EDGE_ID, `Edge id "${id}" is declared twice.`, ['edges', index, 'id']));
      edgeIds.add(id);
    }
    for (const end of ['source', 'target'] as const) {
      const value = edge[end];
      if (typeof value === 'string' && declared.has(value)) continue;
      const code = end === 'source' ? GraphErrorCodes.UNKNOWN_SOURCE_NODE : GraphErrorCodes.UNKNOWN_TARGET_NODE;
      context.addIssue(stableIssue(code, `Edge ${end} ${shownEnd(value)} is not a declared node.`, ['edges', index, end]));
    }
  });
};

/**
 * The field checks cannot see everything JSON forbids (a lone surrogate in an id, an accessor,
 * a class instance holding the lists): one full walk catches the rest, once nothing else is wrong.
 * (In the schema it walks zod's plain copy, so it sees the strings; the validator also walks
 * the caller's value itself, which `compileGraph` stores.)
 */
const wholeJsonRule: CrossFieldRule = (definition, context) => {
  const problem = findJsonProblem(definition);
  if (problem !== null) context.addIssue(stableIssue(GraphErrorCodes.INVALID_JSON_VALUE, problem.message, pointerTokens(problem.path)));
};

/**
 * The schema of a graph definition whose graph data and node data have the given schemas:
 * `GraphDefinitionSchema` (any JSON) and the team's `TeamDefinitionSchema` are both made here,
 * so both carry every rule of SPEC §3.
 */
export function graphDefinitionSchema<Data extends z.ZodType, NodeData extends z.ZodType, Edges extends z.ZodType>(data: Data, nodeData: NodeData, edges: Edges) {
  return z
    .strictObject({
      id: IdentifierSchema,
      definitionVersion: z.number().int().positive(),
      data,
      nodes: z.array(z.strictObject({ id: IdentifierSchema, data: nodeData })),
      edges,
    })
    .superRefine(crossReferenceRules, { when: () => true })
    .superRefine(wholeJsonRule, { when: (payload) => payload.issues.length === 0 });
}

/**
 * The zod form of a graph definition, with every rule of SPEC §3. `compileGraph` validates
 * with it (`validateGraphDefinition`), naming each problem with its stable code.
 */
export const GraphDefinitionSchema = graphDefinitionSchema(JsonValueSchema, JsonValueSchema, z.array(GraphEdgeSchema));

export type GraphNode = z.infer<typeof GraphNodeSchema>;
export type GraphEdge = z.infer<typeof GraphEdgeSchema>;
export type GraphDefinition = z.infer<typeof GraphDefinitionSchema>;

const { INVALID_DEFINITION, INVALID_ID, INVALID_JSON_VALUE, INVALID_VERSION, UNKNOWN_SOURCE_NODE, UNKNOWN_TARGET_NODE } = GraphErrorCodes;

/** `data` must be present (null for none) and JSON; zod's message says where it stops being JSON. */
const dataRule: IssueRule = (value, message) =>
  value === undefined ? { code: INVALID_DEFINITION, message: 'Field "data" is required (use null for no data).' } : { code: INVALID_JSON_VALUE, message };

const idRule = (what: string): IssueRule => ({ code: INVALID_ID, message: `${what} id is not an identifier. ${IDENTIFIER_MESSAGE}` });

const endRule = (end: 'source' | 'target'): IssueRule => (value) => ({
  code: end === 'source' ? UNKNOWN_SOURCE_NODE : UNKNOWN_TARGET_NODE,
  message: `Edge ${end} ${shownEnd(value)} is not a declared node.`,
});

const DEFINITION_ISSUES: IssueMap = {
  code: INVALID_DEFINITION,
  rules: new Map<string, IssueRule>([
    ['', { code: INVALID_DEFINITION, message: 'A graph definition must be an object { id, definitionVersion, data, nodes, edges }.' }],
    ['id', idRule('Graph')],
    ['definitionVersion', { code: INVALID_VERSION, message: 'Field "definitionVersion" must be a positive safe integer.' }],
    ['data', dataRule],
    ['nodes', { code: INVALID_DEFINITION, message: 'Field "nodes" must be an array.' }],
    ['nodes/*', { code: INVALID_DEFINITION, message: 'A node must be an object { id, data }.' }],
    ['nodes/*/id', idRule('Node')],
    ['nodes/*/data', dataRule],
    ['edges', { code: INVALID_DEFINITION, message: 'Field "edges" must be an array.' }],
    ['edges/*', { code: INVALID_DEFINITION, message: 'An edge must be an object { id, source, target, data }.' }],
    ['edges/*/id', idRule('Edge')],
    ['edges/*/source', endRule('source')],
    ['edges/*/target', endRule('target')],
    ['edges/*/data', dataRule],
  ]),
  subtrees: new Set(['data', 'nodes/*/data', 'edges/*/data']),
};

/**
 * Every problem of a candidate graph definition, in document order, with the codes of SPEC §3:
 * `GraphDefinitionSchema`'s verdict, each zod issue named by its stable code. An empty list
 * means the value is a `GraphDefinition`.
 */
export function validateGraphDefinition(definition: unknown): GraphValidationIssue[] {
  const issues = schemaIssues(GraphDefinitionSchema, definition, DEFINITION_ISSUES, [crossReferenceRules]);
  return issues.length > 0 ? issues : schemaIssues(z.unknown(), definition, DEFINITION_ISSUES, [wholeJsonRule]);
}

/** Throws `GraphValidationError` with every problem unless `definition` is a `GraphDefinition`. */
export function assertGraphDefinition(definition: unknown): asserts definition is GraphDefinition {
  const issues = validateGraphDefinition(definition);
  if (issues.length > 0) throw new GraphValidationError(issues);
}
