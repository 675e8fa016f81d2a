import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '@roundtable/core';
import type { StoredEvent } from '@roundtable/storage';
import { snapshotTree } from '@roundtable/test-utils';
import { STACK_LINE, assertBuilt, roundtable, roundtableInProcess, writeRecord } from './__fixtures__/helpers.js';

// `roundtable fork` and `roundtable diff` (SPEC 21) over real records written by the real
// executor: the seed conversation (writer, reviewer approves, writer), forked before the
// reviewer's turn and run on with a reviewer that rejects. The first fork runs the built
// binary; the rest run the same program in process.

let scratch: string;

beforeAll(() => {
  assertBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-cli-fork-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const inProcess = roundtableInProcess;

type RunEventLine = StoredEvent & { streamRevision?: number };

async function events(store: string, runId: string): Promise<RunEventLine[]> {
  const result = await inProcess(['events', runId, '-o', 'jsonl', '--store', store]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as RunEventLine);
}

/** The run revision just before the reviewer's first attempt started: the reviewer is dispatched and has not run. */
function beforeReview(record: readonly StoredEvent[]): number {
  const started = record.find((event) => event.type === 'graph:node-attempt-started' && (event.payload as { nodeId: string }).nodeId === 'reviewer')!;
  return started.revision - 1;
}

async function seedStore(adapter: 'fs' | 'sqlite', name: string): Promise<{ store: string; path: string }> {
  const path = join(scratch, adapter === 'fs' ? name : `${name}.sqlite`);
  await writeRecord(adapter, path, 'seed-run', 'seed');
  return { store: `${adapter}:${path}`, path };
}

describe.each(['fs', 'sqlite'] as const)('roundtable fork and diff (%s)', (adapter) => {
  it('forks in one append and prints its revision; the fork reads as its run; run on with another reviewer, diff shows where and how the runs part', async () => {
    const { store } = await seedStore(adapter, 'fork');
    const parent = await events(store, 'seed-run');
    const at = beforeReview(parent);

    const forked = await roundtable(['fork', 'seed-run', '--at', String(at), '--to', 'fork-run', '--store', store]);
    expect(forked.stderr).toBe('');
    expect(forked.code).toBe(0);
    expect(forked.stdout).toBe(`Forked run seed-run at revision ${at} into fork-run: wrote revision ${at + 1}.\n`);
    expect(await events(store, 'seed-run')).toEqual(parent);

    // The fork, as every command reads it: the parent's events 1..at, then its own, in run revisions.
    const fork = await events(store, 'fork-run');
    expect(fork).toHaveLength(at + 1);
    expect(fork.slice(0, at)).toEqual(parent.slice(0, at));
    expect(fork[at]).toMatchObject({ revision: at + 1, streamRevision: 1, type: 'graph:run-forked', payload: { from: 'seed-run', at, prefixDigest: digest(parent.slice(0, at)) } });
    const tail = await inProcess(['events', 'fork-run', '--after', String(at), '-o', 'jsonl', '--store', store]);
    expect(tail.stdout.trim().split('\n').map((line) => (JSON.parse(line) as RunEventLine).revision)).toEqual([at + 1]);

    const shown = await inProcess(['show', 'fork-run', '--store', store]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`A fork of seed-run at revision ${at}: revisions up to ${at} are the parent's.`);
    // The reviewer was dispatched in the prefix and has not started: ready work for whoever runs the fork.
    expect(shown.stdout).toContain('Outcome: waiting');
    const json = JSON.parse((await inProcess(['show', 'fork-run', '-o', 'json', '--store', store])).stdout) as { forks: unknown; revision: number };
    expect(json).toMatchObject({ forks: [{ from: 'seed-run', at }], revision: at + 1 });
    const verified = await inProcess(['verify', '--all', '--store', store]);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout.split('\n').filter(Boolean).sort()).toEqual([`ok    fork-run (${at + 1} events)`, `ok    seed-run (${parent.length} events)`]);

    // Run the fork on with a reviewer that rejects: only the turns after the fork point run.
    await writeRecord(adapter, store.slice(store.indexOf(':') + 1), 'fork-run', 'reject');
    const ran = await events(store, 'fork-run');
    expect(ran.map((event) => event.revision)).toEqual(ran.map((_, index) => index + 1));
    expect(ran.slice(0, at)).toEqual(parent.slice(0, at));
    expect(ran.slice(at + 1).every((event) => event.streamRevision === event.revision - at)).toBe(true);

    const diff = await inProcess(['diff', 'seed-run', 'fork-run', '--store', store]);
    expect(diff.stderr).toBe('');
    expect(diff.code).toBe(0);
    const lines = diff.stdout.split('\n');
    expect(lines[0]).toBe(`Runs seed-run and fork-run agree up to revision ${at}; they part at revision ${at + 1}:`);
    expect(lines[1]).toBe('  seed-run: graph:node-attempt-started reviewer');
    expect(lines[2]).toBe(`  fork-run: graph:run-forked (a fork of seed-run at ${at})`);
    expect(diff.stdout).toMatch(/^reviewer +team\/reviewer\/1 #1 completed: Reviewed\. +team\/reviewer\/1 #1 completed: Rejected\.$/m);
    expect(diff.stdout).toMatch(/^writer +team\/writer\/2 #1 completed: Done: Approved: ship it\. +team\/writer\/2 #1 completed: Done: Rejected: the tests fail\.$/m);
    expect(diff.stdout).toContain('Outcome: seed-run complete, fork-run complete');

    const asJson = await inProcess(['diff', 'seed-run', 'fork-run', '-o', 'json', '--store', store]);
    const report = JSON.parse(asJson.stdout) as { agreeUpTo: number; differsAt: number; heads: number[]; members: { memberId: string; outcomes: { revision: number; value: { summary: string } }[][] }[] };
    expect(report).toMatchObject({ runs: ['seed-run', 'fork-run'], agreeUpTo: at, differsAt: at + 1, heads: [parent.length, ran.length] });
    const reviewer = report.members.find((member) => member.memberId === 'reviewer')!;
    expect(reviewer.outcomes.map((side) => side.map((outcome) => outcome.value.summary))).toEqual([['Reviewed.'], ['Rejected.']]);
    expect(reviewer.outcomes[1]![0]!.revision).toBeGreaterThan(at);

    // Two forks of one run at one revision part right after it; a run compared with one that holds the same events: none.
    expect((await inProcess(['fork', 'seed-run', '--at', String(at), '--to', 'other-fork', '--store', store])).code).toBe(0);
    const forks = await inProcess(['diff', 'fork-run', 'other-fork', '-o', 'json', '--store', store]);
    expect(JSON.parse(forks.stdout)).toMatchObject({ agreeUpTo: at, differsAt: at + 1 });
    expect((await inProcess(['fork', 'seed-run', '--at', String(parent.length), '--to', 'at-head', '--store', store])).code).toBe(0);
    const prefix = JSON.parse((await inProcess(['diff', 'seed-run', 'at-head', '-o', 'json', '--store', store])).stdout) as { agreeUpTo: number; differsAt: number; eventsAt: unknown[] };
    expect(prefix).toMatchObject({ agreeUpTo: parent.length, differsAt: parent.length + 1 });
    expect(prefix.eventsAt[0]).toBeNull();
  });

  it('a fork of a fork reads as one run; refusals are exit 1 and bad usage exit 2, writing nothing', async () => {
    const { store, path } = await seedStore(adapter, 'refusals');
    const parent = await events(store, 'seed-run');
    const at = beforeReview(parent);
    expect((await inProcess(['fork', 'seed-run', '--at', String(at), '--to', 'first', '--store', store])).code).toBe(0);
    const second = await inProcess(['fork', 'first', '--at', String(at + 1), '--to', 'second', '-o', 'json', '--store', store]);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ runId: 'second', from: 'first', at: at + 1, revision: at + 2 });
    const shown = await inProcess(['show', 'second', '--store', store]);
    expect(shown.stdout).toContain(`A fork of first at revision ${at + 1}, which is a fork of seed-run at revision ${at}: revisions up to ${at + 1} are the parent's.`);
    expect((await events(store, 'second')).map((event) => event.revision)).toEqual(Array.from({ length: at + 2 }, (_, index) => index + 1));

    const snapshot = snapshotTree(adapter === 'fs' ? path : scratch);
    const refused: [string[], string][] = [
      [['fork', 'seed-run', '--at', String(parent.length + 1), '--to', 'x'], 'INVALID_FORK_POINT'],
      [['fork', 'seed-run', '--at', '1', '--to', 'first'], 'RUN_EXISTS'],
      [['fork', 'seed-run', '--at', '1', '--to', 'seed-run'], 'RUN_EXISTS'],
    ];
    for (const [args, code] of refused) {
      const result = await inProcess([...args, '--store', store]);
      expect([result.code, result.stdout, result.stderr.split(':').slice(0, 2).join(':')], args.join(' ')).toEqual([1, '', `roundtable: ${code}`]);
      expect(result.stderr).not.toMatch(STACK_LINE);
    }
    const usage: string[][] = [
      ['fork', 'seed-run', '--to', 'x'],
      ['fork', 'seed-run', '--at', '3'],
      ['fork', 'seed-run', '--at', '0', '--to', 'x'],
      ['fork', 'seed-run', '--at', 'two', '--to', 'x'],
      ['fork', 'seed-run', '--at', '2', '--to', 'no spaces'],
      ['diff', 'seed-run'],
      ['diff', 'seed-run', 'seed-run'],
    ];
    for (const args of usage) {
      const result = await inProcess([...args, '--store', store]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^roundtable: USAGE: /);
    }
    for (const args of [['fork', 'no-such-run', '--at', '1', '--to', 'x'], ['diff', 'seed-run', 'no-such-run']]) {
      const result = await inProcess([...args, '--store', store]);
      expect([result.code, result.stderr.split(':').slice(0, 2).join(':')], args.join(' ')).toEqual([2, 'roundtable: RUN_NOT_FOUND']);
    }
    expect(snapshotTree(adapter === 'fs' ? path : scratch)).toEqual(snapshot);
  });
});

describe('verify and a parent changed under a fork', () => {
  it('recomputes the prefix digest: a parent replaced by another run is CORRUPT_EVENT_STREAM naming the fork and the parent (exit 1)', async () => {
    const { store, path } = await seedStore('fs', 'replaced');
    const at = beforeReview(await events(store, 'seed-run'));
    expect((await inProcess(['fork', 'seed-run', '--at', String(at), '--to', 'fork-run', '--store', store])).code).toBe(0);
    expect((await inProcess(['verify', 'fork-run', '--store', store])).code).toBe(0);

    // The parent's stream removed and written again as another run under the same id: every
    // event checks, the fork's fold even goes through, only the digest tells.
    const folder = join(path, 'default', 'seed-run');
    expect(existsSync(folder)).toBe(true);
    rmSync(folder, { recursive: true });
    await writeRecord('fs', path, 'seed-run', 'failed');
    expect((await inProcess(['verify', 'seed-run', '--store', store])).code).toBe(0);
    const verified = await inProcess(['verify', 'fork-run', '--store', store]);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(new RegExp(`^FAIL  fork-run at revision ${at + 1}: CORRUPT_EVENT_STREAM: Run fork-run is a fork of seed-run at revision ${at}, but its parent changed under it: `, 'm'));
    const json = JSON.parse((await inProcess(['verify', 'fork-run', '-o', 'json', '--store', store])).stdout) as { ok: boolean; runs: { problems: { code: string }[] }[] };
    expect(json.ok).toBe(false);
    expect(json.runs[0]!.problems.map((problem) => problem.code)).toEqual(['CORRUPT_EVENT_STREAM']);
  });
});
