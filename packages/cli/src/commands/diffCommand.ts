import { canonicalJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { GraphEventTypes } from '@roundtable/graph';
import type { RunEvent } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import { CliError } from '../cliError.js';
import type { FormatOptions } from '../optionValues.js';
import { safe, table } from '../output.js';
import { printableJson } from '../printable.js';
import { recordError } from '../recordError.js';
import { requireRunHead } from '../readRun.js';
import { RunInspector } from '../runInspector.js';
import type { RunStatus } from '../runInspector.js';

/** One outcome of a member's attempt after the runs part: its result, failure or pause. */
export interface MemberOutcome {
  readonly position: string;
  /** The attempt the outcome ends (0 for an outcome of a position never started, which a fold refuses). */
  readonly attempt: number;
  readonly revision: number;
  readonly status: 'completed' | 'failed' | 'paused';
  /** A completion's result, a failure's `{ code, message }`, a pause's `{ reason, request }`. */
  readonly value: Json;
}

/** What `roundtable diff -o json` prints. */
export interface RunDiff {
  readonly runs: readonly [string, string];
  readonly heads: readonly [number, number];
  /** The last run revision both hold the same event at: 0 when they differ from the first. */
  readonly agreeUpTo: number;
  /** The first run revision at which they differ (`agreeUpTo + 1`), or null when they hold the same events. */
  readonly differsAt: number | null;
  /** Each run's event at `differsAt` (null where that run ends before it). */
  readonly eventsAt: readonly [RunEvent | null, RunEvent | null];
  /** Every member's outcomes after `agreeUpTo`, in each run, in declaration order (members of either run). */
  readonly members: readonly { readonly memberId: string; readonly outcomes: readonly [readonly MemberOutcome[], readonly MemberOutcome[]] }[];
  readonly statuses: readonly [RunStatus, RunStatus];
}

/** An event as compared: the run's event at a run revision, its stream revision aside (a prefix's event has none, the same event in a fork does). */
function fingerprint(event: RunEvent): string {
  const { streamRevision: _, ...rest } = event;
  return canonicalJson(rest);
}

interface ReadSide {
  readonly inspector: RunInspector;
  readonly events: RunEvent[];
}

/** The whole run, through the view (a fork as its run); a record that cannot be read is its typed error (exit 1). */
async function readSide(storage: RunStorage, runId: string): Promise<ReadSide> {
  await requireRunHead(storage, runId);
  const inspector = new RunInspector(runId);
  const events: RunEvent[] = [];
  try {
    for await (const event of storage.read(runId)) {
      inspector.apply(event);
      events.push(event);
    }
    inspector.endOfRead();
  } catch (error) {
    inspector.fail(error);
  }
  const problem = inspector.report().problem;
  if (problem !== null) throw recordError({ ...problem, message: `run ${runId}: ${problem.message}` });
  return { inspector, events };
}

/** The payload fields of the `graph:node-*` events a diff reads (the strict fold has checked their types). */
interface NodeEventPayload {
  readonly nodeId: string;
  readonly position: string;
  readonly attempt?: number;
  readonly result?: Json;
  readonly code?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly request?: Json;
}

function outcomesAfter(events: readonly RunEvent[], after: number): Map<string, MemberOutcome[]> {
  const byMember = new Map<string, MemberOutcome[]>();
  // An outcome names its position; its attempt is the one that position started last.
  const attempts = new Map<string, number>();
  for (const event of events) {
    if (!event.type.startsWith('graph:node-')) continue;
    const payload = event.payload as unknown as NodeEventPayload;
    if (event.type === GraphEventTypes.NODE_ATTEMPT_STARTED) attempts.set(payload.position, payload.attempt ?? 0);
    if (event.revision <= after) continue;
    let status: MemberOutcome['status'];
    let value: Json;
    if (event.type === GraphEventTypes.NODE_COMPLETED) [status, value] = ['completed', payload.result ?? null];
    else if (event.type === GraphEventTypes.NODE_FAILED) [status, value] = ['failed', { code: payload.code ?? '', message: payload.message ?? '' }];
    else if (event.type === GraphEventTypes.NODE_PAUSED) [status, value] = ['paused', { reason: payload.reason ?? '', request: payload.request ?? null }];
    else continue;
    const list = byMember.get(payload.nodeId) ?? [];
    list.push({ position: payload.position, attempt: attempts.get(payload.position) ?? 0, revision: event.revision, status, value });
    byMember.set(payload.nodeId, list);
  }
  return byMember;
}

/** Compares two runs read as runs; see `diffCommand`. */
export function diffRuns(runIds: readonly [string, string], sides: readonly [ReadSide, ReadSide]): RunDiff {
  const [a, b] = sides;
  const shorter = Math.min(a.events.length, b.events.length);
  let agreeUpTo = 0;
  while (agreeUpTo < shorter && fingerprint(a.events[agreeUpTo]!) === fingerprint(b.events[agreeUpTo]!)) agreeUpTo++;
  const same = agreeUpTo === a.events.length && agreeUpTo === b.events.length;
  const reports = [a.inspector.report(), b.inspector.report()] as const;
  const outcomes = [outcomesAfter(a.events, agreeUpTo), outcomesAfter(b.events, agreeUpTo)] as const;
  const memberIds = [...new Set([...(reports[0].definition?.members ?? []), ...(reports[1].definition?.members ?? []), ...outcomes[0].keys(), ...outcomes[1].keys()])];
  return {
    runs: runIds,
    heads: [a.events.length, b.events.length],
    agreeUpTo,
    differsAt: same ? null : agreeUpTo + 1,
    eventsAt: same ? [null, null] : [a.events[agreeUpTo] ?? null, b.events[agreeUpTo] ?? null],
    members: memberIds.map((memberId) => ({ memberId, outcomes: [outcomes[0].get(memberId) ?? [], outcomes[1].get(memberId) ?? []] as const })),
    statuses: [reports[0].status, reports[1].status],
  };
}

/** A cell's width in the side-by-side table (-o json has every result whole). */
const CELL = 60;

/**
 * `text` in at most CELL characters, showing where it parts from `other` (the same member's
 * outcome in the other run): when they share a long beginning, it is cut to `…` and the text
 * from a little before the first difference, so the cell shows what differs.
 */
function clip(text: string, other: string | undefined): string {
  let from = 0;
  if (other !== undefined && other !== text) {
    let same = 0;
    while (same < text.length && same < other.length && text[same] === other[same]) same++;
    if (same > CELL / 3) from = same - 12;
  }
  const shown = from === 0 ? text : `…${text.slice(from)}`;
  return shown.length <= CELL ? shown : `${shown.slice(0, CELL - 1)}…`;
}

function outcomeDetail(outcome: MemberOutcome): string {
  const value = outcome.value as { summary?: unknown; code?: string; message?: string; reason?: string } | null;
  if (outcome.status === 'completed') return typeof value?.summary === 'string' ? value.summary : JSON.stringify(outcome.value);
  if (outcome.status === 'failed') return `${value?.code ?? ''}: ${value?.message ?? ''}`;
  return value?.reason ?? '';
}

function outcomeText(outcome: MemberOutcome | undefined, other: MemberOutcome | undefined): string {
  if (outcome === undefined) return '-';
  return `${outcome.position} #${outcome.attempt} ${outcome.status}: ${clip(safe(outcomeDetail(outcome)), other === undefined ? undefined : safe(outcomeDetail(other)))}`;
}

function eventText(event: RunEvent | null): string {
  if (event === null) return '(ends before it)';
  if (event.type === GraphEventTypes.RUN_FORKED) {
    const payload = event.payload as { from: string; at: number };
    return `${safe(event.type)} (a fork of ${safe(payload.from)} at ${payload.at})`;
  }
  const payload = event.payload as Record<string, unknown> | null;
  const nodeId = typeof payload === 'object' && payload !== null && typeof payload.nodeId === 'string' ? ` ${safe(payload.nodeId)}` : '';
  return `${safe(event.type)}${nodeId}`;
}

/** The comparison for people: where the runs part, then each member's outcomes after it side by side. */
export function diffText(diff: RunDiff): string {
  const [a, b] = diff.runs.map(safe) as [string, string];
  if (diff.differsAt === null) return `Runs ${a} and ${b} hold the same ${diff.heads[0]} events.`;
  const lines = [
    diff.agreeUpTo === 0 ? `Runs ${a} and ${b} differ from revision 1.` : `Runs ${a} and ${b} agree up to revision ${diff.agreeUpTo}; they part at revision ${diff.differsAt}:`,
    `  ${a}: ${eventText(diff.eventsAt[0])}`,
    `  ${b}: ${eventText(diff.eventsAt[1])}`,
    '',
  ];
  const rows: string[][] = [];
  for (const { memberId, outcomes } of diff.members) {
    const count = Math.max(outcomes[0].length, outcomes[1].length);
    for (let index = 0; index < count; index++) {
      const [a, b] = [outcomes[0][index], outcomes[1][index]];
      rows.push([index === 0 ? safe(memberId) : '', outcomeText(a, b), outcomeText(b, a)]);
    }
  }
  if (rows.length > 0) lines.push(`Outcomes after revision ${diff.agreeUpTo}:`, table(['MEMBER', a, b], rows), '');
  else lines.push(`No member has an outcome after revision ${diff.agreeUpTo} in either run.`, '');
  lines.push(`Outcome: ${a} ${safe(diff.statuses[0].text)}, ${b} ${safe(diff.statuses[1].text)}`);
  return lines.join('\n');
}

/**
 * `roundtable diff <runA> <runB>` (SPEC 21): the first run revision at which two runs differ (a
 * fork and its parent, or two forks of one run, agree up to the fork point), then each member's
 * outcomes after it side by side. Exit 0 whether or not they differ; 1 when a record cannot be
 * read or folded; 2 on bad usage (a run that is not there included).
 */
export async function diffCommand(io: CliIo, runA: string, runB: string, options: FormatOptions): Promise<number> {
  const format = options.output ?? 'text';
  if (runA === runB) throw new CliError('USAGE', 'Name two different runs to compare.');
  return withStorage(io, options, async (storage) => {
    const diff = diffRuns([runA, runB], [await readSide(storage, runA), await readSide(storage, runB)]);
    println(io, format === 'json' ? printableJson(diff, 2) : diffText(diff));
    return ExitCodes.OK;
  });
}
