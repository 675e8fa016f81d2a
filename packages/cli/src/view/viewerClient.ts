// The Roundtable run viewer's page script: plain DOM code, built into dist/viewerClient.js and
// served as /viewer.js (no build step for the user). Everything taken from the record reaches
// the page through text nodes, never as HTML, and control characters are shown escaped, as in
// room files. It imports only types and files of its own folder, which the build bundles in,
// so the built file has no imports.
import type { RunListing } from '../commands/runsCommand.js';
import type { OpenPause } from '../openPauses.js';
import type { AttemptRecord, RunReport, RunStatus } from '../runInspector.js';
import type { EventsResponse, RoomsResponse, StateResponse } from './viewerApi.js';
import { escapeField } from './escapeField.js';

type Child = Node | string | number | null | undefined | false | readonly Child[];

const app = document.getElementById('app')!;
const liveBadge = document.getElementById('live')!;
let liveSource: EventSource | null = null;
let renderToken = 0;
// `roundtable view --actions` prints the URL with ?token=…: every POST carries it in a header.
const actionToken = new URLSearchParams(location.search).get('token');
const actionsOn: Promise<boolean> = fetch('/api/config', { headers: { Accept: 'application/json' } })
  .then((response) => response.json() as Promise<{ actions?: boolean }>)
  .then((config) => config.actions === true && actionToken !== null)
  .catch(() => false);

function nodesOf(children: readonly Child[]): Node[] {
  const nodes: Node[] = [];
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) nodes.push(...nodesOf(child as readonly Child[]));
    else if (child instanceof Node) nodes.push(child);
    else nodes.push(document.createTextNode(typeof child === 'number' ? String(child) : (child as string)));
  }
  return nodes;
}

/** Builds an element; string children become text nodes, so nothing is ever parsed as HTML. */
function el(tag: string, attributes: Record<string, string | number | boolean | null | undefined | (() => void)> | null, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener('click', value);
    else if (name === 'className') node.className = String(value);
    else node.setAttribute(name, String(value));
  }
  node.append(...nodesOf(children));
  return node;
}

function setChildren(node: Element, ...children: Child[]): void {
  node.replaceChildren(...nodesOf(children));
}

class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  const body = (await response.json().catch(() => null)) as (T & { error?: { code: string; message: string } }) | null;
  if (!response.ok) throw new ApiError(body?.error?.code ?? `HTTP_${response.status}`, body?.error?.message ?? response.statusText);
  return body as T;
}

/** A POST of the viewer's actions; a refusal (STALE_ANSWER, RUN_ENDED, …) is an ApiError with its code. */
async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'x-roundtable-token': actionToken ?? '' }, body: JSON.stringify(body) });
  const answer = (await response.json().catch(() => null)) as (T & { error?: { code: string; message: string } }) | null;
  if (!response.ok) throw new ApiError(answer?.error?.code ?? `HTTP_${response.status}`, answer?.error?.message ?? response.statusText);
  return answer as T;
}

/** A request that asks for a yes or no: a review or an approval (its `kind`), or a question. */
function isYesNo(request: unknown): boolean {
  if (typeof request !== 'object' || request === null) return false;
  const { kind, question } = request as { kind?: unknown; question?: unknown };
  return kind === 'review' || kind === 'approval' || kind === 'tool-approval' || typeof question === 'string';
}

/** The form under an open pause: a JSON value, and Approve / Reject for a yes or no. The answer is bound to the pause shown (pausedAt). */
function answerForm(runId: string, pause: OpenPause): HTMLElement {
  const status = el('div', { className: 'action-status', role: 'status' });
  const value = el('textarea', { className: 'answer-value mono', rows: 3, 'aria-label': `answer to ${pause.position}` }) as HTMLTextAreaElement;
  const send = async (answer: unknown) => {
    setChildren(status, 'Sending…');
    try {
      const written = await post<{ revision: number }>(`/api/runs/${encodeURIComponent(runId)}/answer`, { position: pause.position, value: answer, pausedAt: pause.pausedAt });
      setChildren(status, `Answered: wrote revision ${written.revision}.`);
    } catch (error) {
      setChildren(status, problemBox(error instanceof ApiError ? error.code : 'ERROR', error instanceof Error ? error.message : String(error)));
    }
  };
  const sendJson = () => {
    let answer: unknown;
    try {
      answer = JSON.parse(value.value);
    } catch {
      setChildren(status, problemBox('BAD_JSON', 'The answer must be JSON (a string in double quotes).'));
      return;
    }
    void send(answer);
  };
  return el(
    'div',
    { className: 'answer-form', 'data-answer': pause.position },
    value,
    el('button', { type: 'button', className: 'answer-send', onclick: sendJson }, 'Answer'),
    isYesNo(pause.request)
      ? [
          el('button', { type: 'button', className: 'answer-approve', onclick: () => void send({ approved: true }) }, 'Approve'),
          el('button', { type: 'button', className: 'answer-reject', onclick: () => void send({ approved: false }) }, 'Reject'),
        ]
      : null,
    status,
  );
}

/** Cancel on a run that has not ended: one `graph:run-cancelled` with the reason typed. */
function cancelForm(runId: string): HTMLElement {
  const status = el('div', { className: 'action-status', role: 'status' });
  const reason = el('input', { type: 'text', className: 'cancel-reason', maxlength: 1024, placeholder: 'why (for the record)', 'aria-label': 'cancel reason' }) as HTMLInputElement;
  const cancel = async () => {
    try {
      const written = await post<{ revision: number }>(`/api/runs/${encodeURIComponent(runId)}/cancel`, { reason: reason.value });
      setChildren(status, `Cancelled: wrote revision ${written.revision}.`);
    } catch (error) {
      setChildren(status, problemBox(error instanceof ApiError ? error.code : 'ERROR', error instanceof Error ? error.message : String(error)));
    }
  };
  const button = el('button', { type: 'button', className: 'cancel-run', onclick: () => void cancel() }, 'Cancel run');
  return el('div', { className: 'cancel-form' }, reason, button, status);
}

function problemBox(code: string, message: string, revision?: number): HTMLElement {
  return el('div', { className: 'problem', role: 'alert' }, el('span', { className: 'code' }, escapeField(code)), revision === undefined ? '' : ` at revision ${revision}`, ': ', escapeField(message));
}

function badge(status: RunStatus): HTMLElement {
  return el('span', { className: `badge status-${status.kind}`, 'data-status': status.kind }, escapeField(status.text));
}

function formatDuration(ms: number | null): string {
  if (ms === null) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A fork's lineage, each parent a link: its revisions up to the fork point are the parent's. */
function forkLine(report: RunReport): Child {
  if (report.forks.length === 0) return null;
  const parts: Child[] = [];
  [...report.forks].reverse().forEach((fork, index) => {
    parts.push(index === 0 ? 'A fork of ' : ', which is a fork of ', el('a', { href: `#/run/${encodeURIComponent(fork.from)}` }, escapeField(fork.from)), ` at revision ${fork.at}`);
  });
  return el('p', { className: 'fork-of', 'data-fork-of': report.forks.at(-1)!.from }, ...parts);
}

function stopLive(): void {
  liveSource?.close();
  liveSource = null;
  liveBadge.hidden = true;
}

async function renderRuns(): Promise<void> {
  const token = ++renderToken;
  const { runs } = await api<{ runs: RunListing[] }>('/api/runs');
  if (token !== renderToken) return;
  const header = el('tr', null, ['Run', 'Team', 'Status', 'Turns', 'Last event'].map((title) => el('th', null, title)));
  const rows = runs.map((run) =>
    el(
      'tr',
      { 'data-run': run.runId },
      el('td', null, el('a', { href: `#/run/${encodeURIComponent(run.runId)}` }, escapeField(run.runId))),
      el('td', null, escapeField(run.definitionId ?? '-')),
      el('td', null, badge(run.status)),
      el('td', null, String(run.turns)),
      el('td', { className: 'mono' }, escapeField(run.lastEventAt ?? '-')),
    ),
  );
  setChildren(app, el('h1', null, 'Runs'), runs.length === 0 ? el('p', { className: 'muted' }, 'This store has no runs.') : el('table', { className: 'runs' }, el('thead', null, header), el('tbody', null, rows)));
}

function attemptBox(attempt: AttemptRecord): HTMLElement {
  const status = attempt.code === null ? attempt.status : `${attempt.status} ${attempt.code}`;
  const posts = attempt.posts.map((post) => `${escapeField(post.roomId)}${post.mentions.map((mention) => ` @${escapeField(mention)}`).join('')}`).join('; ');
  return el(
    'div',
    { className: `attempt attempt-${attempt.status}`, 'data-position': attempt.position, 'data-status': attempt.status, title: escapeField(attempt.message ?? attempt.reason ?? '') },
    el('div', { className: 'position mono' }, escapeField(attempt.position), attempt.attempt > 0 ? ` #${attempt.attempt}` : ''),
    el('div', { className: 'outcome' }, escapeField(status), attempt.status === 'paused' ? `: ${escapeField(attempt.reason ?? '')}` : '', attempt.durationMs === null ? '' : ` · ${formatDuration(attempt.durationMs)}`),
    posts === '' ? null : el('div', { className: 'posts' }, `→ ${posts}`),
  );
}

function lanes(report: RunReport): HTMLElement {
  const members = report.definition?.members ?? [...new Set(report.attempts.map((attempt) => attempt.nodeId))];
  return el(
    'div',
    { className: 'lanes' },
    members.map((member) =>
      el(
        'div',
        { className: 'lane', 'data-member': member },
        el('div', { className: 'lane-name' }, escapeField(member)),
        el('div', { className: 'attempts' }, report.attempts.filter((attempt) => attempt.nodeId === member).map(attemptBox)),
      ),
    ),
  );
}

function openAttempts(report: RunReport & { readonly openPauses?: readonly OpenPause[] }, actions: boolean): Child {
  const latest = new Map<string, AttemptRecord>();
  for (const attempt of report.attempts) latest.set(attempt.position, attempt);
  // A position's latest attempt is open unless it completed, failed or was retried (a retry or a resume opens the next one).
  const open = [...latest.values()].filter((attempt) => attempt.status === 'paused' || attempt.status === 'started' || attempt.status === 'dispatched' || attempt.status === 'resumed');
  if (open.length === 0) return el('p', { className: 'muted' }, 'No attempt is paused or waiting.');
  return open.map((attempt) =>
    el(
      'div',
      { className: 'open-attempt', 'data-open': attempt.position },
      el(
        'div',
        null,
        el('strong', { className: 'mono' }, escapeField(attempt.position)),
        ` (${escapeField(attempt.nodeId)}): `,
        attempt.status === 'paused'
          ? `paused: ${escapeField(attempt.reason ?? '')}`
          : attempt.status === 'started'
            ? 'started, no outcome yet (running elsewhere, or its process stopped)'
            : attempt.status === 'resumed'
              ? 'resumed, not restarted'
              : 'dispatched, not started',
      ),
      attempt.status === 'paused' ? el('pre', { className: 'request' }, JSON.stringify(attempt.request, null, 2)) : null,
      actions && attempt.status === 'paused' ? pauseForm(report, attempt.position) : null,
    ),
  );
}

function pauseForm(report: RunReport & { readonly openPauses?: readonly OpenPause[] }, position: string): Child {
  const pause = report.openPauses?.find((open) => open.position === position);
  return pause === undefined ? null : answerForm(report.runId, pause);
}

function roomsSection(rooms: RoomsResponse): Child {
  if (rooms.problem !== null) return problemBox(rooms.problem.code, rooms.problem.message, rooms.problem.revision);
  if (rooms.rooms.length === 0) return el('p', { className: 'muted' }, 'This run has no rooms.');
  return rooms.rooms.map((room) =>
    el('div', { className: 'room', 'data-room': room.roomId }, el('h3', null, escapeField(room.roomId)), el('pre', { className: 'room-lines' }, room.text === '' ? '(empty)' : room.text)),
  );
}

function eventsSection(events: EventsResponse): Child {
  return [
    events.problem === null ? null : problemBox(events.problem.code, events.problem.message),
    events.events.map((event) =>
      el(
        'details',
        { className: 'event', 'data-revision': event.revision },
        el('summary', { className: 'mono' }, `${event.revision}  ${escapeField(event.type)}  ${escapeField(event.timestamp)}`),
        el('pre', null, JSON.stringify(event, null, 2)),
      ),
    ),
  ];
}

/** Fork at the revision the state form names, into a new run (the page then shows it): one `graph:run-forked`. */
function forkForm(runId: string, revision: HTMLInputElement): HTMLElement {
  const status = el('span', { className: 'fork-status' });
  const to = el('input', { type: 'text', className: 'fork-to mono', placeholder: 'new run id', 'aria-label': 'fork run id' }) as HTMLInputElement;
  const fork = async () => {
    try {
      const written = await post<{ runId: string; revision: number }>(`/api/runs/${encodeURIComponent(runId)}/fork`, { at: Number(revision.value) || 0, to: to.value });
      setChildren(status, `Forked: wrote revision ${written.revision} of ${escapeField(written.runId)}.`);
      location.hash = `#/run/${encodeURIComponent(written.runId)}`;
    } catch (error) {
      setChildren(status, problemBox(error instanceof ApiError ? error.code : 'ERROR', error instanceof Error ? error.message : String(error)));
    }
  };
  return el('div', { className: 'fork-form' }, 'Fork after this revision into ', to, ' ', el('button', { type: 'button', className: 'fork-run', onclick: () => void fork() }, 'Fork'), ' ', status);
}

function stateSection(runId: string, head: number, actions: boolean): HTMLElement {
  const output = el('div', { className: 'state-output' });
  const input = el('input', { type: 'number', className: 'state-revision', min: 1, max: head, value: head, 'aria-label': 'revision' }) as HTMLInputElement;
  const show = async () => {
    const state = await api<StateResponse>(`/api/runs/${encodeURIComponent(runId)}/state?revision=${Number(input.value) || 0}`);
    if (state.members === null || state.messages === null) {
      setChildren(output, state.problem === null ? el('p', { className: 'muted' }, 'The state is shown for team runs.') : problemBox(state.problem.code, state.problem.message, state.problem.revision));
      return;
    }
    const header = el('tr', null, ['Member', 'Status', 'Turns', 'In flight', 'Queued', 'Pause reason', 'Failure'].map((title) => el('th', null, title)));
    const rows = state.members.map((member) =>
      el(
        'tr',
        { 'data-member': member.id },
        el('td', null, escapeField(member.id)),
        el('td', null, member.status),
        el('td', null, String(member.turns)),
        el('td', { className: 'mono' }, escapeField(member.inFlight ?? '')),
        el('td', null, member.queued ? 'yes' : ''),
        el('td', null, escapeField(member.pauseReason ?? '')),
        el('td', null, escapeField(member.failureCode ?? '')),
      ),
    );
    setChildren(
      output,
      el('p', null, `After revision ${state.revision} of ${state.head}: `, badge(state.status)),
      el('table', { className: 'state-members' }, el('thead', null, header), el('tbody', null, rows)),
      el('p', { className: 'muted' }, `${state.messages.length} saved messages`),
    );
  };
  const button = el('button', { type: 'button' }, 'Show');
  button.addEventListener('click', () => void show().catch(showError));
  return el('div', null, el('div', { className: 'state-form' }, el('label', null, 'State after revision ', input), button), actions ? forkForm(runId, input) : null, output);
}

async function renderRun(runId: string): Promise<void> {
  const token = ++renderToken;
  const path = `/api/runs/${encodeURIComponent(runId)}`;
  const [report, rooms, events, actions] = await Promise.all([api<RunReport & { openPauses: OpenPause[] }>(path), api<RoomsResponse>(`${path}/rooms`), api<EventsResponse>(`${path}/events`), actionsOn]);
  if (token !== renderToken) return;
  const definition = report.definition;
  const scroll = window.scrollY;
  // What a person is typing survives the live re-render that each new event brings.
  const typed = new Map<string, string>();
  for (const field of app.querySelectorAll<HTMLTextAreaElement | HTMLInputElement>('.answer-value, .cancel-reason, .fork-to, .state-revision')) {
    // Only what was typed on this run's page: a revision left at the head follows the head.
    if (app.dataset.run === runId && field.value !== field.defaultValue) typed.set(field.getAttribute('aria-label') ?? '', field.value);
  }
  setChildren(
    app,
    el('p', null, el('a', { href: '#/' }, '← all runs')),
    el('h1', null, escapeField(runId), ' ', badge(report.status)),
    el(
      'p',
      { className: 'muted' },
      definition === null
        ? `${report.revision} events`
        : `${escapeField(definition.kind)} ${escapeField(definition.id ?? '')} · definition v${definition.definitionVersion ?? '?'} · ${report.revision} events · ${report.turns} turns`,
    ),
    forkLine(report),
    report.problem === null ? null : problemBox(report.problem.code, report.problem.message, report.problem.revision),
    el('h2', null, 'Lanes'),
    lanes(report),
    el('h2', null, 'Paused and waiting'),
    openAttempts(report, actions),
    actions && !['complete', 'failed', 'cancelled', 'unreadable'].includes(report.status.kind) ? cancelForm(runId) : null,
    el('h2', null, 'Rooms'),
    roomsSection(rooms),
    el('h2', null, 'State'),
    stateSection(runId, report.revision, actions),
    el('h2', null, 'Events'),
    eventsSection(events),
  );
  for (const field of app.querySelectorAll<HTMLTextAreaElement | HTMLInputElement>('.answer-value, .cancel-reason, .fork-to, .state-revision')) {
    const value = typed.get(field.getAttribute('aria-label') ?? '');
    if (value !== undefined) field.value = value;
  }
  window.scrollTo(0, scroll);
  app.dataset.revision = String(report.revision);
  app.dataset.run = runId;
  if (liveSource === null && report.problem === null) startLive(runId, report.revision);
}

function startLive(runId: string, after: number): void {
  const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/live?after=${after}`);
  liveSource = source;
  liveBadge.hidden = false;
  source.addEventListener('revision', () => void renderRun(runId).catch(showError));
  source.addEventListener('problem', (message: MessageEvent<string>) => {
    const problem = JSON.parse(message.data) as { code: string; message: string };
    stopLive();
    app.prepend(problemBox(problem.code, problem.message));
  });
}

function showError(error: unknown): void {
  const code = error instanceof ApiError ? error.code : 'ERROR';
  const message = error instanceof Error ? error.message : String(error);
  setChildren(app, el('p', null, el('a', { href: '#/' }, '← all runs')), problemBox(code, message));
}

function route(): void {
  const match = /^#\/run\/(.+)$/.exec(location.hash);
  stopLive();
  const work = match === null ? renderRuns() : renderRun(decodeURIComponent(match[1]!));
  work.catch(showError);
}

void actionsOn.then((on) => {
  if (on) document.querySelector('.subtitle')!.textContent = 'run viewer (answers, cancels and forks on)';
});
window.addEventListener('hashchange', route);
route();
