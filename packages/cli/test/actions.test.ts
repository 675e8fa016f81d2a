import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@roundtable/storage';
import { snapshotTree } from '@roundtable/test-utils';
import { BIN, STACK_LINE, assertBuilt, roundtable, roundtableInProcess, startCancellableRecord, startServedRecord, writeRecord } from './__fixtures__/helpers.js';

// `roundtable answer` and `cancel`: commands that append (SPEC 20), over a real record
// written by the real executor, paused at the reviewer's approval. The first case runs the built
// binary; the rest run the same program in process (a binary start costs seconds on a busy machine).

const POSITION = 'team/reviewer/1';
let scratch: string;

beforeAll(() => {
  assertBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-cli-answer-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh paused record on `adapter`, as a store URL. */
async function pausedStore(adapter: 'fs' | 'sqlite', name: string): Promise<string> {
  const path = join(scratch, adapter === 'fs' ? name : `${name}.sqlite`);
  await writeRecord(adapter, path, 'paused-run', 'paused');
  return `${adapter}:${path}`;
}

const inProcess = roundtableInProcess;

async function events(store: string, runId = 'paused-run'): Promise<StoredEvent[]> {
  const result = await inProcess(['events', runId, '-o', 'jsonl', '--store', store]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as StoredEvent);
}

function pauseRevision(record: readonly StoredEvent[]): number {
  return record.findLast((event) => event.type === 'graph:node-paused')!.revision;
}

describe.each(['fs', 'sqlite'] as const)('roundtable answer (%s)', (adapter) => {
  it('appends one graph:node-resumed bound to the pause, prints its revision, and refuses a second answer with STALE_ANSWER, writing nothing', async () => {
    const store = await pausedStore(adapter, 'once');
    const before = await events(store);
    const pausedAt = pauseRevision(before);
    const answered = await roundtable(['answer', 'paused-run', POSITION, '--approve', '--note', 'looks good', '--paused-at', String(pausedAt), '--store', store]);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);
    expect(answered.stdout).toBe(`Answered ${POSITION} of run paused-run (the pause at revision ${pausedAt}): wrote revision ${before.length + 1}.\n`);
    const after = await events(store);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({ revision: before.length + 1, type: 'graph:node-resumed', payload: { nodeId: 'reviewer', position: POSITION, value: { approved: true, note: 'looks good' } } });

    for (const again of [['--reject'], ['--value', '{"approved":true}', '--paused-at', String(pausedAt)]]) {
      const stale = await inProcess(['answer', 'paused-run', POSITION, ...again, '--store', store]);
      expect(stale.code).toBe(1);
      expect(stale.stdout).toBe('');
      expect(stale.stderr).toMatch(/^roundtable: STALE_ANSWER: /);
      expect(stale.stderr).not.toMatch(STACK_LINE);
    }
    expect(await events(store)).toEqual(after);
  });

  it('refuses an answer bound to another revision (STALE_ANSWER) and one to a position that is not paused (PROTOCOL), with exit 1 and nothing written', async () => {
    const store = await pausedStore(adapter, 'refused');
    const before = await events(store);
    const wrong = await inProcess(['answer', 'paused-run', POSITION, '--value', '"yes"', '--paused-at', String(pauseRevision(before) - 1), '--store', store]);
    expect([wrong.code, wrong.stderr.split(':').slice(0, 2).join(':')]).toEqual([1, 'roundtable: STALE_ANSWER']);
    const finished = await inProcess(['answer', 'paused-run', 'team/writer/1', '--approve', '--store', store]);
    expect([finished.code, finished.stderr.split(':').slice(0, 2).join(':')]).toEqual([1, 'roundtable: PROTOCOL']);
    expect(await events(store)).toEqual(before);
  });

  it('takes the answer from --value-file, and exits 2 for bad usage, changing nothing', async () => {
    const store = await pausedStore(adapter, 'usage');
    const path = store.slice(store.indexOf(':') + 1);
    const snapshot = snapshotTree(adapter === 'fs' ? path : scratch);
    const usage: string[][] = [
      [],
      ['--value', '{"a":1}', '--approve'],
      ['--approve', '--reject'],
      ['--value', 'not json'],
      ['--value', '1', '--note', 'n'],
      ['--value-file', join(scratch, 'missing.json')],
      ['--approve', '--paused-at', '0'],
      ['--approve', '--paused-at', 'x'],
    ];
    for (const args of usage) {
      const result = await inProcess(['answer', 'paused-run', POSITION, ...args, '--store', store]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^roundtable: USAGE: /);
      expect(result.stderr).not.toMatch(STACK_LINE);
    }
    const missing = await inProcess(['answer', 'no-such-run', POSITION, '--approve', '--store', store]);
    expect([missing.code, missing.stderr.split(':').slice(0, 2).join(':')]).toEqual([2, 'roundtable: RUN_NOT_FOUND']);
    const elsewhere = await inProcess(['answer', 'paused-run', POSITION, '--approve', '--namespace', 'other', '--store', store]);
    expect(elsewhere.stderr).toMatch(/^roundtable: RUN_NOT_FOUND: .*namespace "other"/);
    expect(snapshotTree(adapter === 'fs' ? path : scratch)).toEqual(snapshot);

    const file = join(scratch, `answer-${adapter}.json`);
    writeFileSync(file, '{"approved": false, "note": "from a file"}');
    const fromFile = await inProcess(['answer', 'paused-run', POSITION, '--value-file', file, '-o', 'json', '--store', store]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const written = JSON.parse(fromFile.stdout) as { revision: number; pausedAt: number };
    const record = await events(store);
    expect(written).toEqual({ runId: 'paused-run', position: POSITION, revision: record.length, pausedAt: pauseRevision(record) });
    expect(record.at(-1)!.payload).toMatchObject({ value: { approved: false, note: 'from a file' } });
  });
});

describe.each(['fs', 'sqlite'] as const)('open pauses in show and runs (%s)', (adapter) => {
  it('lists each open pause with its revision, request and the answer command, which answers it when run in a shell', async () => {
    const store = await pausedStore(adapter, `listed ${adapter} it's`);
    const pausedAt = pauseRevision(await events(store));
    const show = await inProcess(['show', 'paused-run', '--store', store]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`Open pauses`);
    expect(show.stdout).toContain(`  ${POSITION} at revision ${pausedAt}: needs approval\n    request {"question":"Ship the notes?"}\n`);
    const command = show.stdout.split('\n').find((line) => line.trim().startsWith('roundtable answer '))!.trim();
    const json = JSON.parse((await inProcess(['runs', '-o', 'json', '--store', store])).stdout) as { runs: { openPauses: { position: string; pausedAt: number; answer: string }[] }[] };
    expect(json.runs[0]!.openPauses).toMatchObject([{ position: POSITION, pausedAt, answer: command }]);
    const runs = await inProcess(['runs', '--store', store]);
    expect(runs.stdout).toContain(`  paused-run ${POSITION} at revision ${pausedAt}: needs approval`);
    // The command as printed, quoting and all, with the value filled in.
    const filled = command.replace("--value '<json>'", `--value '{"approved":true,"note":"from the printed command"}'`);
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', ['-c', `roundtable() { "${process.execPath}" "${BIN}" "$@"; }; ${filled}`], (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr }));
    });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect((await events(store)).at(-1)).toMatchObject({ type: 'graph:node-resumed', payload: { value: { approved: true, note: 'from the printed command' } } });
    // Answered: nothing open any more.
    expect((await inProcess(['show', 'paused-run', '--store', store])).stdout).not.toContain('Open pauses');
  });
});

/** The record once its pause is in it (a hang guard only: vitest's timeout ends a wait that never holds). */
async function pausedRecord(store: string, runId: string): Promise<StoredEvent[]> {
  for (;;) {
    const record = await inProcess(['events', runId, '-o', 'jsonl', '--store', store]);
    const parsed = record.code === 0 ? record.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as StoredEvent) : [];
    if (parsed.some((event) => event.type === 'graph:node-paused')) return parsed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(['fs', 'sqlite'] as const)('a run served in another process (%s)', (adapter) => {
  it('goes on by itself when roundtable answer appends the answer, and ends cancelled when roundtable cancel appends a cancel', async () => {
    const path = join(scratch, adapter === 'fs' ? 'served' : 'served.sqlite');
    const store = `${adapter}:${path}`;
    const served = await startServedRecord(adapter, path, 'served-run');
    const pausedAt = pauseRevision(await pausedRecord(store, 'served-run'));
    const answered = await roundtable(['answer', 'served-run', POSITION, '--approve', '--note', 'go', '--paused-at', String(pausedAt), '--store', store]);
    expect([answered.code, answered.stderr]).toEqual([0, '']);
    const ended = await served.ended;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain(JSON.stringify({ kind: 'complete', given: [{ approved: true, note: 'go' }] }));
    const show = await inProcess(['show', 'served-run', '-o', 'json', '--store', store]);
    expect(JSON.parse(show.stdout).status).toMatchObject({ kind: 'complete' });

    const cancelledPath = join(scratch, adapter === 'fs' ? 'served-cancel' : 'served-cancel.sqlite');
    const cancelledStore = `${adapter}:${cancelledPath}`;
    const waiting = await startServedRecord(adapter, cancelledPath, 'served-run');
    await pausedRecord(cancelledStore, 'served-run');
    const cancelled = await inProcess(['cancel', 'served-run', '--reason', 'not today', '--store', cancelledStore]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    const stopped = await waiting.ended;
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(JSON.stringify({ kind: 'cancelled', given: [] }));
  });
});

describe.each(['fs', 'sqlite'] as const)('roundtable cancel (%s)', (adapter) => {
  it('stops an attempt running in another process: that process records it CANCELLED and its run() reports cancelled; show says cancelled', async () => {
    const path = join(scratch, adapter === 'fs' ? 'live' : 'live.sqlite');
    const writer = await startCancellableRecord(adapter, path, 'live-run');
    const store = `${adapter}:${path}`;
    const cancelled = await roundtable(['cancel', 'live-run', '--reason', 'wrong brief', '--store', store]);
    expect(cancelled.stderr).toBe('');
    expect(cancelled.code).toBe(0);
    const revision = Number(/wrote revision (\d+)\.$/m.exec(cancelled.stdout)?.[1]);
    expect(cancelled.stdout).toBe(`Cancelled run live-run: wrote revision ${revision}.\n`);
    const ended = await writer.ended;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('{"kind":"cancelled"}');
    const record = await events(store, 'live-run');
    expect(record[revision - 1]).toMatchObject({ type: 'graph:run-cancelled', payload: { reason: 'wrong brief' } });
    expect(record.at(-1)).toMatchObject({ revision: revision + 1, type: 'graph:node-failed', payload: { nodeId: 'reviewer', code: 'CANCELLED' } });
    const show = await inProcess(['show', 'live-run', '-o', 'json', '--store', store]);
    expect(JSON.parse(show.stdout).status).toMatchObject({ kind: 'cancelled', text: 'cancelled', reason: 'wrong brief' });
  });

  it('cancels a paused run; then an answer and a second cancel are RUN_ENDED (exit 1, nothing written); bad reasons are USAGE', async () => {
    const store = await pausedStore(adapter, 'cancel-paused');
    const first = await inProcess(['cancel', 'paused-run', '--reason', 'no longer needed', '-o', 'json', '--store', store]);
    expect(first.code, first.stderr).toBe(0);
    const after = await events(store);
    expect(JSON.parse(first.stdout)).toEqual({ runId: 'paused-run', revision: after.length });
    const show = await inProcess(['show', 'paused-run', '--store', store]);
    expect(show.stdout).toMatch(/Outcome: cancelled\n {2}reason: no longer needed\n$/);
    for (const argv of [['answer', 'paused-run', POSITION, '--approve'], ['cancel', 'paused-run', '--reason', 'again']]) {
      const refused = await inProcess([...argv, '--store', store]);
      expect([refused.code, refused.stderr.split(':').slice(0, 2).join(':')], argv.join(' ')).toEqual([1, 'roundtable: RUN_ENDED']);
    }
    for (const reason of [[], ['--reason', ''], ['--reason', 'x'.repeat(1025)]]) {
      const usage = await inProcess(['cancel', 'paused-run', ...reason, '--store', store]);
      expect(usage.code, usage.stderr).toBe(2);
      expect(usage.stderr).toMatch(/^roundtable: USAGE: /);
    }
    expect(await events(store)).toEqual(after);
  });
});
