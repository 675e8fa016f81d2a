import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Json } from '@roundtable/core';
import { isRoundtableError } from '@roundtable/core';
import { answerPause, cancelRun, forkRun } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import { CliError } from '../cliError.js';
import { parseRunId } from '../optionValues.js';
import { knownGraphTypeList } from '../graphTypes.js';

/** What `roundtable view --actions` lets the page do: the same appends as `answer`, `cancel` and `fork`. */
export interface ViewerActions {
  /** The random 128-bit token (32 hex digits) every POST must carry in `x-roundtable-token`. */
  readonly token: string;
  /** Runs `work` over the store opened for appending, once run `runId` is known to be there (RUN_NOT_FOUND otherwise, creating nothing). */
  readonly forRun: <T>(runId: string, work: (storage: RunStorage) => Promise<T>) => Promise<T>;
}

/** The largest POST body taken: an answer's JSON value fits many times over. */
export const MAX_ACTION_BODY_BYTES = 1 << 20;

export const TOKEN_HEADER = 'x-roundtable-token';

/** A refusal of a POST: its HTTP status and stable code. */
export class ActionRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The HTTP status of a typed error an action met: a stale or refused answer is a conflict, bad input 400, an unknown run 404. */
export function actionStatus(error: unknown): number {
  if (error instanceof ActionRefused) return error.status;
  const code = isRoundtableError(error) ? error.code : '';
  if (code === 'RUN_NOT_FOUND') return 404;
  if (code === 'STALE_ANSWER' || code === 'RUN_ENDED' || code === 'PROTOCOL' || code === 'REVISION_CONFLICT' || code === 'RUN_EXISTS' || code === 'INVALID_FORK_POINT' || code === 'FORK_TOO_DEEP') return 409;
  if (code === 'USAGE' || code === 'INVALID_JSON_VALUE' || code === 'UNKNOWN_GRAPH_TYPE') return 400;
  return 500;
}

/**
 * Whether a POST may act: it names this viewer's own origin (a page of another site cannot send
 * its `Origin` as ours) and carries the token (never a cookie, so another page's request gets
 * none of it).
 */
export function checkActionRequest(request: IncomingMessage, port: number, token: string): void {
  const origin = request.headers.origin;
  if (origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
    throw new ActionRefused(403, 'ORIGIN_NOT_ALLOWED', `A POST must come from this viewer's own page (Origin http://127.0.0.1:${port}), not ${origin === undefined ? 'no Origin' : JSON.stringify(origin)}.`);
  }
  const given = request.headers[TOKEN_HEADER];
  const expected = Buffer.from(token, 'utf8');
  const actual = Buffer.from(typeof given === 'string' ? given : '', 'utf8');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new ActionRefused(403, 'BAD_TOKEN', `A POST must carry the token printed in the viewer's URL in the header ${TOKEN_HEADER}.`);
  }
}

/** The request's JSON body, an object of at most MAX_ACTION_BODY_BYTES (413 beyond, read no further). */
export async function readActionBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_ACTION_BODY_BYTES) throw new ActionRefused(413, 'BODY_TOO_LARGE', `A POST body is at most ${MAX_ACTION_BODY_BYTES} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ACTION_BODY_BYTES) throw new ActionRefused(413, 'BODY_TOO_LARGE', `A POST body is at most ${MAX_ACTION_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ActionRefused(400, 'BAD_JSON', 'A POST body must be JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ActionRefused(400, 'BAD_JSON', 'A POST body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** `POST /api/runs/<runId>/answer` `{ position, value, pausedAt }`: answerPause bound to the pause the page showed. */
export async function answerAction(actions: ViewerActions, runId: string, body: Record<string, unknown>): Promise<{ revision: number; pausedAt: number }> {
  const { position, pausedAt } = body;
  if (typeof position !== 'string' || position.length === 0) throw new CliError('USAGE', 'An answer needs the position of the pause (a string).');
  if (typeof pausedAt !== 'number' || !Number.isSafeInteger(pausedAt) || pausedAt < 1) throw new CliError('USAGE', 'An answer needs pausedAt: the revision of the pause the page showed.');
  if (!('value' in body)) throw new CliError('USAGE', 'An answer needs a value (any JSON).');
  const value = body.value as Json;
  return actions.forRun(runId, (storage) => answerPause({ storage, runId, position, value, pausedAt, types: knownGraphTypeList }));
}

/** `POST /api/runs/<runId>/cancel` `{ reason }`: cancelRun. */
export async function cancelAction(actions: ViewerActions, runId: string, body: Record<string, unknown>): Promise<{ revision: number }> {
  const { reason } = body;
  if (typeof reason !== 'string' || reason.length === 0 || reason.length > 1024) throw new CliError('USAGE', 'A cancel needs a reason of 1 to 1,024 characters.');
  return actions.forRun(runId, (storage) => cancelRun({ storage, runId, reason, types: knownGraphTypeList }));
}

/** `POST /api/runs/<runId>/fork` `{ at, to }`: forkRun at the revision the state view showed, into the new run `to`. */
export async function forkAction(actions: ViewerActions, runId: string, body: Record<string, unknown>): Promise<{ runId: string; revision: number }> {
  const { at, to } = body;
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 1) throw new CliError('USAGE', 'A fork needs at: the run revision to go on from (a positive integer).');
  if (typeof to !== 'string') throw new CliError('USAGE', 'A fork needs to: the new run\'s id.');
  const newRunId = parseRunId(to);
  return actions.forRun(runId, (storage) => forkRun({ storage, from: runId, at, to: newRunId, types: knownGraphTypeList }));
}
