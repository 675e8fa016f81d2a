import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isRoundtableError } from '@roundtable/core';
import { formatRoomLine } from '@roundtable/rooms';
import { followStream } from '@roundtable/storage';
import type { RunStorage, StoredEvent } from '@roundtable/storage';
import { CliError } from '../cliError.js';
import { runListing } from '../commands/runsCommand.js';
import { checkPort, parseNonNegativeInteger, parseRunId } from '../optionValues.js';
import { printableJson } from '../printable.js';
import { readRun, requireRunHead } from '../readRun.js';
import { RunInspector } from '../runInspector.js';
import { openPauses } from '../openPauses.js';
import { ActionRefused, actionStatus, answerAction, cancelAction, checkActionRequest, forkAction, readActionBody } from './viewerActions.js';
import type { ViewerActions } from './viewerActions.js';
import type { EventsResponse, RoomsResponse, StateResponse } from './viewerApi.js';

export interface ViewerOptions {
  readonly storage: RunStorage;
  /** 0 (the default) picks a random free port. */
  readonly port?: number;
  /** Given (`roundtable view --actions`), the page can answer pauses and cancel runs; else every POST is 405. */
  readonly actions?: ViewerActions;
}

export interface RunningViewer {
  /** `http://127.0.0.1:<port>/`, with `?token=<token>` when the viewer takes actions. */
  readonly url: string;
  readonly port: number;
  /** Stops serving and ends every live connection. */
  close(): Promise<void>;
}

/** The static page, shipped in the package (no build step for the user). */
const STATIC_FILES: Readonly<Record<string, { file: URL; type: string }>> = {
  '/': { file: new URL('../viewer/index.html', import.meta.url), type: 'text/html; charset=utf-8' },
  '/viewer.css': { file: new URL('../viewer/viewer.css', import.meta.url), type: 'text/css; charset=utf-8' },
  // The page script, built from src/view/viewerClient.ts beside this module in dist/.
  '/viewer.js': { file: new URL('./viewerClient.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
};

const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** Only requests naming this server by a loopback name pass: a DNS-rebound page sends its own host name. */
function allowedHost(host: string | undefined, port: number): boolean {
  if (host === `127.0.0.1:${port}` || host === `localhost:${port}`) return true;
  // A browser leaves out the default port.
  return port === 80 && (host === '127.0.0.1' || host === 'localhost');
}

const JSON_HEADERS = { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8' };

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, JSON_HEADERS);
  response.end(printableJson(body));
}

function sendError(response: ServerResponse, error: unknown): void {
  const code = isRoundtableError(error) ? error.code : 'UNEXPECTED';
  const message = error instanceof Error ? error.message : String(error);
  const status = code === 'RUN_NOT_FOUND' ? 404 : code === 'USAGE' ? 400 : 500;
  sendJson(response, status, { error: { code, message } });
}

/**
 * A request Node's HTTP parser refused (a request line with a space or a control character, a
 * URL over the header limit): answered as every other error, in JSON with a code, then closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = printableJson({ error: { code: 'BAD_REQUEST', message: tooLarge ? 'The request line or headers are too large.' : 'The request is not valid HTTP.' } });
  const head = [`HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}`, ...Object.entries(JSON_HEADERS).map(([name, value]) => `${name}: ${value}`)];
  socket.end(`${head.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** The request's URL; one that does not parse (`//[`) is USAGE, a 400. */
function requestUrl(request: IncomingMessage, port: number): URL {
  try {
    return new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
  } catch {
    throw new CliError('USAGE', 'The request URL does not parse.');
  }
}

/** A run id from a path segment, decoded in this one place: a malformed escape (`%E0%A4%A`) or a name no run can have is USAGE, a 400. */
function runIdSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new CliError('USAGE', 'The path has a malformed percent-encoding.');
  }
  return parseRunId(decoded);
}

function revisionParam(url: URL, name: string): number | null {
  const value = url.searchParams.get(name);
  return value === null ? null : parseNonNegativeInteger(value, name);
}

/** The team state after `revision`: the record folded up to it, members and messages. */
async function stateAfter(storage: RunStorage, runId: string, revision: number): Promise<StateResponse> {
  const head = await requireRunHead(storage, runId);
  const inspector = new RunInspector(runId);
  try {
    for await (const event of storage.read(runId)) {
      if (event.revision > revision) break;
      inspector.apply(event);
    }
  } catch (error) {
    inspector.fail(error);
  }
  const state = inspector.teamState();
  const report = inspector.report();
  return {
    revision: Math.min(revision, inspector.revision),
    head,
    status: report.status,
    problem: report.problem,
    members: state?.members ?? null,
    messages: state === null ? null : state.log.slice(0, state.messageCount),
  };
}

async function rooms(storage: RunStorage, runId: string): Promise<RoomsResponse> {
  const report = (await readRun(storage, runId)).report();
  return {
    revision: report.revision,
    problem: report.problem,
    rooms: (report.team?.rooms ?? []).map((room) => ({
      roomId: room.id,
      text: (report.team?.messages ?? []).filter((message) => message.roomId === room.id).map(formatRoomLine).join(''),
    })),
  };
}

async function events(storage: RunStorage, runId: string, after: number): Promise<EventsResponse> {
  const list: StoredEvent[] = [];
  let problem: { code: string; message: string } | null = null;
  try {
    for await (const event of storage.read(runId, { after })) list.push(event);
  } catch (error) {
    problem = { code: isRoundtableError(error) ? error.code : 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
  }
  return { events: list, problem };
}

/** Server-sent events: `revision` whenever the run grows, fed by followStream; ends when the page goes. */
function live(storage: RunStorage, runId: string, after: number, request: IncomingMessage, response: ServerResponse, closing: AbortSignal): void {
  response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
  response.write(': live\n\n');
  const controller = new AbortController();
  const stop = () => controller.abort();
  request.once('close', stop);
  closing.addEventListener('abort', stop, { once: true });
  void (async () => {
    try {
      let pending: ReturnType<typeof setTimeout> | null = null;
      let revision = after;
      for await (const event of followStream(storage, runId, { after, signal: controller.signal, pollIntervalMs: 250 })) {
        revision = event.revision;
        // One message per burst of events: the page refetches what it shows.
        pending ??= setTimeout(() => {
          pending = null;
          response.write(`event: revision\ndata: ${printableJson({ revision })}\n\n`);
        }, 20);
      }
      if (pending !== null) clearTimeout(pending);
    } catch (error) {
      const code = isRoundtableError(error) ? error.code : 'UNEXPECTED';
      response.write(`event: problem\ndata: ${printableJson({ code, message: error instanceof Error ? error.message : String(error) })}\n\n`);
    } finally {
      closing.removeEventListener('abort', stop);
      response.end();
    }
  })();
}

/** A POST of `--actions`: answer, cancel or fork, after the origin, token and body checks. */
async function act(actions: ViewerActions, request: IncomingMessage, response: ServerResponse, url: URL, port: number): Promise<void> {
  const match = /^\/api\/runs\/([^/]+)\/(answer|cancel|fork)$/.exec(url.pathname);
  if (match === null) throw new ActionRefused(404, 'NOT_FOUND', `No action at ${url.pathname}: POST /api/runs/<runId>/answer, /cancel or /fork.`);
  checkActionRequest(request, port, actions.token);
  const body = await readActionBody(request);
  const runId = runIdSegment(match[1]!);
  if (match[2] === 'answer') sendJson(response, 200, await answerAction(actions, runId, body));
  else if (match[2] === 'cancel') sendJson(response, 200, await cancelAction(actions, runId, body));
  else sendJson(response, 200, await forkAction(actions, runId, body));
}

async function route(storage: RunStorage, request: IncomingMessage, response: ServerResponse, url: URL, closing: AbortSignal, actionsOn: boolean): Promise<void> {
  const asset = STATIC_FILES[url.pathname];
  if (asset !== undefined) {
    const body = await readFile(fileURLToPath(asset.file));
    response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': asset.type });
    response.end(body);
    return;
  }
  if (url.pathname === '/favicon.ico') {
    response.writeHead(204, SECURITY_HEADERS);
    response.end();
    return;
  }
  if (url.pathname === '/api/config') {
    sendJson(response, 200, { actions: actionsOn });
    return;
  }
  if (url.pathname === '/api/runs') {
    const listings = [];
    for await (const { streamId } of storage.streams()) listings.push(runListing((await readRun(storage, streamId)).report()));
    sendJson(response, 200, { runs: listings });
    return;
  }
  const match = /^\/api\/runs\/([^/]+)(?:\/(events|state|rooms|live))?$/.exec(url.pathname);
  if (match === null) {
    sendJson(response, 404, { error: { code: 'NOT_FOUND', message: `Nothing at ${url.pathname}.` } });
    return;
  }
  const runId = runIdSegment(match[1]!);
  switch (match[2]) {
    case undefined: {
      const report = (await readRun(storage, runId)).report();
      sendJson(response, 200, { ...report, openPauses: openPauses(runId, report.attempts, report.status, null) });
      return;
    }
    case 'events':
      sendJson(response, 200, await events(storage, runId, revisionParam(url, 'after') ?? 0));
      return;
    case 'state':
      sendJson(response, 200, await stateAfter(storage, runId, revisionParam(url, 'revision') ?? Number.MAX_SAFE_INTEGER));
      return;
    case 'rooms':
      sendJson(response, 200, await rooms(storage, runId));
      return;
    case 'live':
      live(storage, runId, revisionParam(url, 'after') ?? 0, request, response, closing);
      return;
  }
}

/**
 * Serves the run viewer on 127.0.0.1 only: the static page and read-only JSON endpoints over
 * `storage`, plus server-sent events fed by `followStream` for live updates. Requests whose
 * Host is not 127.0.0.1 or localhost (with this port) are refused (DNS rebinding), as is every
 * method but GET and HEAD. Without `actions` nothing it does appends to a record; with them the
 * POSTs of `viewerActions.ts` answer, cancel and fork (origin, token and size checked).
 */
export async function startViewer(options: ViewerOptions): Promise<RunningViewer> {
  const { storage } = options;
  const listenPort = checkPort(options.port ?? 0);
  const closing = new AbortController();
  let port = 0;
  const server: Server = createServer((request, response) => {
    if (!allowedHost(request.headers.host, port)) {
      sendJson(response, 403, { error: { code: 'HOST_NOT_ALLOWED', message: 'This viewer answers only to 127.0.0.1 and localhost.' } });
      return;
    }
    if (request.method === 'POST' && options.actions !== undefined) {
      const actions = options.actions;
      Promise.resolve()
        .then(() => act(actions, request, response, requestUrl(request, port), port))
        .catch((error: unknown) => {
          if (response.headersSent) return void response.end();
          // A body refused part way is not read on: the connection ends with the answer.
          if (!request.complete) response.setHeader('Connection', 'close');
          const code = error instanceof ActionRefused || isRoundtableError(error) ? (error as { code: string }).code : 'UNEXPECTED';
          sendJson(response, actionStatus(error), { error: { code, message: error instanceof Error ? error.message : String(error) } });
        });
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', options.actions === undefined ? 'GET, HEAD' : 'GET, HEAD, POST');
      sendJson(response, 405, { error: { code: 'READ_ONLY', message: options.actions === undefined ? 'The viewer is read-only: start it with roundtable view --actions to answer, cancel and fork from the page.' : 'Only GET, HEAD and the POST actions are served.' } });
      return;
    }
    Promise.resolve()
      .then(() => route(storage, request, response, requestUrl(request, port), closing.signal, options.actions !== undefined))
      .catch((error: unknown) => {
        if (!response.headersSent) sendError(response, error);
        else response.end();
      });
  });
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new CliError('PORT_UNAVAILABLE', `Cannot listen on 127.0.0.1:${listenPort}: ${error.code ?? error.message}.`, { cause: error })),
    );
    server.listen(listenPort, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/${options.actions === undefined ? '' : `?token=${options.actions.token}`}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
