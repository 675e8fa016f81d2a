import type { Json } from '@roundtable/core';
import type { AttemptRecord, RunStatus } from './runInspector.js';

/** A pause a person can answer now: its position, the revision of its `graph:node-paused`, and what it asks. */
export interface OpenPause {
  readonly position: string;
  readonly nodeId: string;
  /** The revision of the pause: `--paused-at` binds an answer to exactly this request. */
  readonly pausedAt: number;
  readonly reason: string;
  readonly request: Json;
  /** The command that answers it (`--value` to be filled in; `--approve`/`--reject` answer a yes/no). */
  readonly answer: string;
}

/** Quoted for a POSIX shell when it is not plainly safe. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Every paused attempt of a run that has not ended, in record order, with the exact `roundtable answer` command for it. */
export function openPauses(runId: string, attempts: readonly AttemptRecord[], status: RunStatus, store: string | null): OpenPause[] {
  if (status.kind === 'cancelled' || status.kind === 'complete' || status.kind === 'failed' || status.kind === 'unreadable') return [];
  // A position's latest attempt is the one that counts: an answered pause is followed by the resumed attempt.
  const latest = new Map<string, AttemptRecord>();
  for (const attempt of attempts) latest.set(attempt.position, attempt);
  return [...latest.values()]
    .filter((attempt) => attempt.status === 'paused' && attempt.revisions.length > 0)
    .map((attempt) => {
      const pausedAt = attempt.revisions.at(-1)!;
      const words = ['roundtable', 'answer', shellWord(runId), shellWord(attempt.position), '--paused-at', String(pausedAt), '--value', "'<json>'"];
      if (store !== null) words.push('--store', shellWord(store));
      return { position: attempt.position, nodeId: attempt.nodeId, pausedAt, reason: attempt.reason ?? '', request: attempt.request ?? null, answer: words.join(' ') };
    });
}
