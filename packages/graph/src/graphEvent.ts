import { z } from 'zod';
import { GraphErrorCodes, graphIssue } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import { IdentifierSchema } from './graphDefinition.js';
import { JsonValueSchema, hasOwn, isRecord, isShallowJson } from './json.js';

/** The version of every standard `graph:` event. */
const STANDARD_EVENT_VERSION = 1;

/** The longest reason a `graph:run-cancelled` may give (SPEC 20). */
export const MAX_CANCEL_REASON_LENGTH = 1024;

const PositiveSafeIntegerSchema = z.number().int().positive();

/** Where an attempt event points: a declared node (the fold checks that) and its dispatch position. */
const attemptFields = { nodeId: z.string(), position: IdentifierSchema };

/**
 * The payload of each standard `graph:` event (SPEC §4 and 11.4), exactly: the executor writes
 * these and the fold reads them. Whether an event fits the record so far (a declared node, a
 * matching attempt) is the fold's business, not the payload's.
 */
export const GraphEventPayloadSchemas = {
  'graph:run-started': z.strictObject({ definition: JsonValueSchema }),
  'graph:node-dispatched': z.strictObject({ ...attemptFields }),
  'graph:node-attempt-started': z.strictObject({ ...attemptFields, attempt: PositiveSafeIntegerSchema, retrySafe: z.boolean() }),
  'graph:node-completed': z.strictObject({ ...attemptFields, result: JsonValueSchema }),
  'graph:node-failed': z.strictObject({ ...attemptFields, code: z.string(), message: z.string() }),
  'graph:node-paused': z.strictObject({ ...attemptFields, reason: z.string(), request: JsonValueSchema }),
  'graph:node-resumed': z.strictObject({ ...attemptFields, value: JsonValueSchema }),
  'graph:node-retried': z.strictObject({ ...attemptFields, attempt: PositiveSafeIntegerSchema, code: z.string(), message: z.string() }),
  'graph:run-cancelled': z.strictObject({ reason: z.string().min(1).max(MAX_CANCEL_REASON_LENGTH) }),
  'graph:run-forked': z.strictObject({ from: z.string(), at: PositiveSafeIntegerSchema, prefixDigest: z.string(), definition: JsonValueSchema }),
} as const;

/**
 * Each standard `graph:` event type's exact payload fields, read from its schema (the fold's
 * hot-path check uses them). Read-only by type, not frozen: V8 iterates frozen arrays slower.
 */
export const GRAPH_EVENT_PAYLOAD_FIELDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(GraphEventPayloadSchemas).map(([type, schema]) => [type, Object.keys(schema.shape)]),
);

const PAYLOAD_SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map(Object.entries(GraphEventPayloadSchemas));

function standardEventRules(event: { type: unknown; version: unknown; payload: unknown }, context: z.core.$RefinementCtx): void {
  if (typeof event.type !== 'string' || !event.type.startsWith('graph:')) return;
  const schema = PAYLOAD_SCHEMAS.get(event.type);
  if (schema === undefined) {
    context.addIssue({ code: 'custom', message: 'Unknown graph event type.', path: ['type'] });
    return;
  }
  if (event.version !== STANDARD_EVENT_VERSION) {
    context.addIssue({ code: 'custom', message: `Version ${String(event.version)} is not supported (only ${STANDARD_EVENT_VERSION}).`, path: ['version'] });
  }
  const parsed = schema.safeParse(event.payload);
  if (!parsed.success) for (const issue of parsed.error.issues) context.addIssue({ ...issue, path: ['payload', ...issue.path] });
}

/**
 * What a graph type's `reduce` receives: the part of a stored event that graphs read. A
 * standard `graph:` event must also be version 1 with exactly its payload fields
 * (`GraphEventPayloadSchemas`): the same events `graphEventProblem` accepts. Other types are
 * the hosts' own.
 */
export const GraphEventSchema = z
  .strictObject({
    type: z.string(),
    version: z.number(),
    payload: JsonValueSchema,
  })
  .superRefine(standardEventRules);

export type GraphEvent = z.infer<typeof GraphEventSchema>;

/** The fields of an event, read from `GraphEventSchema`. */
const EVENT_KEYS: readonly string[] = Object.keys(GraphEventSchema.shape);

/**
 * Checks that `event` is exactly `{ type, version, payload }`. This runs once per folded event,
 * so the payload is checked only at its top level: the storage layer has already checked
 * that stored payloads are JSON, and reducers check every field they read.
 */
export function checkGraphEvent(event: unknown): GraphValidationIssue | null {
  const code = GraphErrorCodes.INVALID_GRAPH_TYPE;
  if (!isRecord(event)) return graphIssue(code, '', 'An event must be an object { type, version, payload }.');
  const keys = Object.keys(event);
  if (keys.length !== EVENT_KEYS.length || !EVENT_KEYS.every((key) => hasOwn(event, key))) {
    return graphIssue(code, '', `An event must have exactly the fields type, version and payload (got ${keys.join(', ') || 'none'}).`);
  }
  if (typeof event['type'] !== 'string') return graphIssue(code, '/type', 'Event type must be a string.');
  const version = event['version'];
  if (typeof version !== 'number' || !Number.isFinite(version)) return graphIssue(code, '/version', 'Event version must be a finite number.');
  return payloadIssue(event['payload']);
}

/** `checkGraphEvent`'s verdict on an event's payload alone (the top level of it). */
export function payloadIssue(payload: unknown): GraphValidationIssue | null {
  return isShallowJson(payload) ? null : graphIssue(GraphErrorCodes.INVALID_GRAPH_TYPE, '/payload', 'Event payload must be a JSON value.');
}
