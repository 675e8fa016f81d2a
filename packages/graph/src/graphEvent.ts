import { z } from 'zod';
import { GraphErrorCodes, graphIssue } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import { hasOwn, isRecord, isShallowJson } from './json.js';
import { JsonValueSchema } from './json.js';

/** What a graph type's `reduce` receives: the part of a stored event that graphs read. */
export const GraphEventSchema = z.strictObject({
  type: z.string(),
  version: z.number(),
  payload: JsonValueSchema,
});

export type GraphEvent = z.infer<typeof GraphEventSchema>;

/**
 * Checks that `event` is exactly `{ type, version, payload }`. This runs once per folded event,
 * so the payload is checked only at its top level: the storage layer has already checked
 * that stored payloads are JSON, and reducers check every field they read.
 */
export function checkGraphEvent(event: unknown): GraphValidationIssue | null {
  const code = GraphErrorCodes.INVALID_GRAPH_TYPE;
  if (!isRecord(event)) return graphIssue(code, '', 'An event must be an object { type, version, payload }.');
  const keys = Object.keys(event);
  if (keys.length !== 3 || !hasOwn(event, 'type') || !hasOwn(event, 'version') || !hasOwn(event, 'payload')) {
    return graphIssue(code, '', `An event must have exactly the fields type, version and payload (got ${keys.join(', ') || 'none'}).`);
  }
  if (typeof event['type'] !== 'string') return graphIssue(code, '/type', 'Event type must be a string.');
  const version = event['version'];
  if (typeof version !== 'number' || !Number.isFinite(version)) return graphIssue(code, '/version', 'Event version must be a finite number.');
  if (!isShallowJson(event['payload'])) return graphIssue(code, '/payload', 'Event payload must be a JSON value.');
  return null;
}
