import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptStatuses, RunStatuses } from '@roundtable/graph';
import type { NewEvent, StoredEvent } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import { snapshotTree } from '@roundtable/test-utils';
import { STACK_LINE, assertBuilt, roundtable, roundtableInProcess, startRoundtable, writeKilledRecord, writeRecord } from './__fixtures__/helpers.js';
import { firstUnprintable } from './__fixtures__/unprintable.js';

/** The writer's post in the `controls` record (see the fixture). */
const CONTROLS = 'csi \u009b31m del \u007f nel \u0085 ls \u2028 ps \u2029 rlo \u202eevil\u202c lri \u2066x\u2069 zwj a\u200db bom \ufeff tag \u{e0041}';


let scratch: string;
let fsStore: string;
let sqliteStore: string;

beforeAll(async () => {
  assertBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-cli-'));
  fsStore = join(scratch, 'record');
  sqliteStore = join(scratch, 'record.sqlite');
  for (const [adapter, path] of [['fs', fsStore], ['sqlite', sqliteStore]] as const) {
    await Promise.all([
      writeRecord(adapter, path, 'seed-run', 'seed'),
      writeRecord(adapter, path, 'paused-run', 'paused'),
      writeRecord(adapter, path, 'failed-run', 'failed'),
      writeKilledRecord(adapter, path, 'waiting-run'),
    ]);
  }
  await writeRecord('fs', fsStore, 'hostile-run', 'hostile');
  await writeRecord('fs', fsStore, 'controls-run', 'controls');
}, 120_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const ADAPTERS = ['fs', 'sqlite'] as const;
/** The store URL of an adapter's record (known only once beforeAll made the scratch folder). */
const storeOf = (adapter: (typeof ADAPTERS)[number]) => (adapter === 'fs' ? `fs:${fsStore}` : `sqlite:${sqliteStore}`);
const stores = () => ADAPTERS.map((adapter) => [adapter, storeOf(adapter)] as const);

function sqliteEvents(path: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT namespace, stream_id, revision, body FROM events ORDER BY namespace, stream_id, revision').all();
  } finally {
    db.close();
  }
}


/** Every fs batch file under `directory`, at any depth. */
function batchFiles(directory: string): string[] {
  const batches: string[] = [];
  const visit = (path: string) => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) visit(child);
      else if (name.endsWith('.batch')) batches.push(child);
    }
  };
  visit(directory);
  return batches;
}
describe('roundtable runs', () => {
  it.each(ADAPTERS)('lists every run with its status on %s', async (adapter) => {
    const store = storeOf(adapter);
    const result = await roundtable(['runs', '--store', store]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^RUN\s+TEAM\s+STATUS\s+TURNS\s+LAST EVENT$/);
    const row = (runId: string) => lines.find((line) => line.startsWith(`${runId} `))!;
    expect(row('seed-run')).toMatch(/^seed-run\s+release-team\s+complete\s+3\s+\d{4}-\d\d-\d\dT/);
    expect(row('paused-run')).toMatch(/\spaused needs approval\s+2\s/);
    expect(row('failed-run')).toMatch(/\sfailed TEAM_NODE_FAILED\s+2\s/);
    expect(row('waiting-run')).toMatch(/\swaiting\s+2\s/);
  });

  it('reads only the namespace given with --namespace', async () => {
    const path = join(scratch, 'namespaced.sqlite');
    await writeRecord('sqlite', path, 'team-a-run', 'seed', 'team-a');
    await writeRecord('sqlite', path, 'default-run', 'seed');
    const inA = await roundtable(['runs', '--store', path, '--namespace', 'team-a', '-o', 'json']);
    expect(JSON.parse(inA.stdout).runs.map((run: { runId: string }) => run.runId)).toEqual(['team-a-run']);
    const inDefault = await roundtable(['runs', '--store', path, '-o', 'json']);
    expect(JSON.parse(inDefault.stdout).runs.map((run: { runId: string }) => run.runId)).toEqual(['default-run']);
    expect((await roundtable(['show', 'team-a-run', '--store', path])).code).toBe(2);
    expect((await roundtable(['show', 'team-a-run', '--store', path, '--namespace', 'team-a'])).code).toBe(0);
  });

  it('prints the documented JSON fields with -o json, and reads ROUNDTABLE_STORE', async () => {
    const result = await roundtable(['runs', '-o', 'json'], { ROUNDTABLE_STORE: sqliteStore });
    expect(result.code).toBe(0);
    const { runs } = JSON.parse(result.stdout);
    const seed = runs.find((run: { runId: string }) => run.runId === 'seed-run');
    expect(seed).toMatchObject({ runId: 'seed-run', definitionId: 'release-team', kind: 'team', turns: 3, revision: 10, status: { kind: 'complete', text: 'complete' } });
    expect(typeof seed.lastEventAt).toBe('string');
    const waiting = runs.find((run: { runId: string }) => run.runId === 'waiting-run');
    expect(waiting.status).toEqual({ kind: 'waiting', text: 'waiting', positions: ['team/reviewer/1'] });
    const failed = runs.find((run: { runId: string }) => run.runId === 'failed-run');
    expect(failed.status).toMatchObject({ kind: 'failed', code: 'TEAM_NODE_FAILED', failures: [{ memberId: 'reviewer', position: 'team/reviewer/1', code: 'EFFECT_FAILED' }] });
    const paused = runs.find((run: { runId: string }) => run.runId === 'paused-run');
    expect(paused.status).toMatchObject({ kind: 'paused', reason: 'needs approval', positions: ['team/reviewer/1'], request: { question: 'Ship the notes?' } });
  });

  it("names statuses only with graph's vocabulary in runs and show JSON (RunStatuses, AttemptStatuses)", async () => {
    // Beside a run status, the CLI says only why it cannot give one: a kind it does not know, a record it cannot read.
    const runStatuses = new Set<string>([...RunStatuses, 'unknown', 'unreadable']);
    for (const store of [fsStore, sqliteStore]) {
      const { runs } = JSON.parse((await roundtable(['runs', '--store', store, '-o', 'json'])).stdout) as { runs: { runId: string; status: { kind: string } }[] };
      expect(runs.length).toBeGreaterThan(0);
      for (const run of runs) {
        expect(runStatuses, run.runId).toContain(run.status.kind);
        const report = JSON.parse((await roundtable(['show', run.runId, '--store', store, '-o', 'json'])).stdout) as { status: { kind: string }; attempts: { status: string }[] };
        expect(runStatuses).toContain(report.status.kind);
        for (const attempt of report.attempts) expect(AttemptStatuses).toContain(attempt.status);
      }
    }
  });
});

describe('roundtable show', () => {
  it.each(ADAPTERS)('shows the seed run on %s as three attempts, then complete', async (adapter) => {
    const store = storeOf(adapter);
    const result = await roundtable(['show', 'seed-run', '--store', store]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const attempts = lines.filter((line) => line.startsWith('team/'));
    expect(attempts).toHaveLength(3);
    expect(attempts[0]).toMatch(/^team\/writer\/1\s+writer\s+1\s+completed\s+\d+(\.\d)? m?s\s+review @reviewer$/);
    expect(attempts[1]).toMatch(/^team\/reviewer\/1\s+reviewer\s+1\s+completed\s+.*review @writer$/);
    expect(attempts[2]).toMatch(/^team\/writer\/2\s+writer\s+1\s+completed/);
    expect(result.stdout).toContain('Outcome: complete');
    expect(result.stdout).toContain('writer: Done: Approved: ship it.');
  });

  it('shows a failed run with its code and message and exits 1; paused and waiting exit 0', async () => {
    const failed = await roundtable(['show', 'failed-run', '--store', fsStore]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/team\/reviewer\/1\s+reviewer\s+1\s+failed EFFECT_FAILED/);
    expect(failed.stdout).toContain('Outcome: failed TEAM_NODE_FAILED');
    expect(failed.stdout).toContain('reviewer at team/reviewer/1: EFFECT_FAILED the reviewer crashed');
    const paused = await roundtable(['show', 'paused-run', '--store', fsStore]);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(/team\/reviewer\/1\s+reviewer\s+1\s+paused: needs approval/);
    expect(paused.stdout).toContain('at team/reviewer/1, request {"question":"Ship the notes?"}');
    const waiting = await roundtable(['show', 'waiting-run', '--store', sqliteStore]);
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toMatch(/team\/reviewer\/1\s+reviewer\s+1\s+started/);
    expect(waiting.stdout).toContain('Outcome: waiting');
  });

  it('prints the documented JSON with -o json', async () => {
    const result = await roundtable(['show', 'seed-run', '--store', fsStore, '-o', 'json']);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ runId: 'seed-run', revision: 10, turns: 3, definition: { id: 'release-team', kind: 'team', typeVersion: 1, members: ['writer', 'reviewer'] }, status: { kind: 'complete' }, problem: null });
    expect(report.attempts.map((attempt: { position: string; status: string; attempt: number }) => [attempt.position, attempt.status, attempt.attempt])).toEqual([
      ['team/writer/1', 'completed', 1],
      ['team/reviewer/1', 'completed', 1],
      ['team/writer/2', 'completed', 1],
    ]);
    expect(report.attempts[0].posts).toEqual([{ roomId: 'review', text: 'Please review the draft.', mentions: ['reviewer'], messageId: 'team/writer/1/0' }]);
    expect(typeof report.attempts[0].durationMs).toBe('number');
    expect(report.team.messages).toHaveLength(2);
  });

  it('escapes terminal control characters from the record', async () => {
    const result = await roundtable(['show', 'hostile-run', '--store', fsStore]);
    expect(result.stdout).not.toContain('\u001b');
    const tail = await roundtable(['tail', 'hostile-run', '--store', fsStore]);
    expect(tail.stdout).not.toContain('\u001b');
    expect(tail.stdout).toContain('\\u001b[31mred');
  });

  it('shows why an attempt was retried, escaped like all text', async () => {
    const result = await roundtable(['show', 'controls-run', '--store', fsStore]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^team\/reviewer\/1\s+reviewer\s+1\s+retried RESULT_INVALID\s/m);
    expect(result.stdout).toContain('  team/reviewer/1 attempt 1 retried: RESULT_INVALID: Member "reviewer" posted to room "lobby\\u009b2J\\u202e", which this team does not declare.');
  });

  it('prints no raw C1, DEL, U+2028/2029, bidi or zero-width character in text, json or jsonl, and the JSON parses back to the text', async () => {
    const outputs = await Promise.all(
      [['show'], ['show', '-o', 'json'], ['tail'], ['tail', '-o', 'jsonl'], ['events'], ['events', '-o', 'json'], ['events', '-o', 'jsonl'], ['verify'], ['verify', '-o', 'json']].map(async ([command, ...format]) => {
        const result = await roundtable([command!, 'controls-run', ...format, '--store', fsStore]);
        expect(result.code, `${command} ${format.join(' ')}: ${result.stderr}`).toBe(0);
        return [`${command} ${format.join(' ')}`, result.stdout] as const;
      }),
    );
    outputs.push(['runs -o json', (await roundtable(['runs', '-o', 'json', '--store', fsStore])).stdout]);
    for (const [what, stdout] of outputs) expect(firstUnprintable(stdout, '\n'), what).toBeNull();
    const output = (what: string) => outputs.find(([name]) => name === what)![1];
    expect(JSON.parse(output('show -o json')).attempts[0].posts[0].text).toBe(CONTROLS);
    expect(JSON.parse(output('tail -o jsonl').split('\n')[0]!).text).toBe(CONTROLS);
    const completions = (JSON.parse(output('events -o json')) as StoredEvent[]).filter((event) => event.type === 'graph:node-completed');
    expect(JSON.stringify(completions[0]!.payload)).toContain(JSON.stringify(CONTROLS));
    expect(output('tail ')).toContain('rlo \\u202eevil\\u202c lri \\u2066x\\u2069 zwj a\\u200db bom \\ufeff tag \\udb40\\udc41');
  });
});

describe('roundtable verify', () => {
  it('exits 0 for good records, without a progress bar when stderr is not a terminal', async () => {
    for (const [, store] of stores()) {
      const result = await roundtable(['verify', '--all', '--store', store]);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^ok {4}seed-run \(10 events\)$/m);
    }
    const json = JSON.parse((await roundtable(['verify', 'seed-run', 'failed-run', '--store', fsStore, '-o', 'json'])).stdout);
    expect(json).toEqual({ ok: true, runs: [{ runId: 'seed-run', ok: true, events: 10, problems: [] }, { runId: 'failed-run', ok: true, events: expect.any(Number), problems: [] }] });
  });

  it('exits 1 on a tampered event and names its revision', async () => {
    const directory = join(scratch, 'tampered');
    const source = createFsStorage({ directory: fsStore });
    const target = createFsStorage({ directory });
    const events: StoredEvent[] = [];
    for await (const event of source.read('seed-run')) events.push(event);
    const copy = events.map(({ envelopeVersion: _v, streamId: _s, revision: _r, ...event }): NewEvent => event);
    // The reviewer's completion, at a version the fold does not know.
    const index = events.findIndex((event) => event.type === 'graph:node-completed' && (event.payload as { nodeId: string }).nodeId === 'reviewer');
    copy[index] = { ...copy[index]!, version: 2 };
    await target.append('seed-run', 0, copy);
    await source.close();
    await target.close();
    const result = await roundtable(['verify', 'seed-run', '--store', directory]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`FAIL  seed-run at revision ${index + 1}: INVALID_EVENT`);
    const json = JSON.parse((await roundtable(['verify', '--all', '--store', directory, '-o', 'json'])).stdout);
    expect(json.ok).toBe(false);
    expect(json.runs[0].problems[0]).toMatchObject({ revision: index + 1, code: 'INVALID_EVENT' });
  });

  it('shows a run whose next batch is due, with nothing open, as running', async () => {
    const directory = join(scratch, 'running');
    const source = createFsStorage({ directory: fsStore });
    const target = createFsStorage({ directory });
    const events: NewEvent[] = [];
    for await (const { envelopeVersion: _v, streamId: _s, revision: _r, ...event } of source.read('seed-run')) events.push(event);
    // Up to the writer's completion: the reviewer's turn is due but not dispatched yet.
    await target.append('seed-run', 0, events.slice(0, 4));
    await source.close();
    await target.close();
    expect((await roundtable(['runs', '--store', directory])).stdout).toMatch(/^seed-run\s+release-team\s+running\s+1\s/m);
    const show = await roundtable(['show', 'seed-run', '--store', directory]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Outcome: running\n  next: team/reviewer/1');
  });

  const damageCases = process.env.FAULT_SCALE === 'full' ? 200 : 6;
  // A hang guard, not a speed check: four runs of the binary a case, 15 s each on a loaded machine.
  it('ends in exit 0 or 1 with a typed error, never a crash, for fs records damaged at random', { timeout: 60_000 + damageCases * 4 * 15_000 }, async () => {
    const cases = damageCases;
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const base = join(scratch, 'fuzz-base');
    await writeRecord('fs', base, 'seed-run', 'seed');
    for (let round = 0; round < cases; round++) {
      const directory = join(scratch, `fuzz-${round}`);
      cpSync(base, directory, { recursive: true });
      const batches = batchFiles(directory);
      const victim = batches[Math.floor(random() * batches.length)]!;
      const bytes = readFileSync(victim);
      const damage = Math.floor(random() * 3);
      const at = Math.floor(random() * bytes.length);
      if (damage === 0) bytes[at] = bytes[at]! ^ (1 + Math.floor(random() * 255));
      writeFileSync(victim, damage === 1 ? bytes.subarray(0, Math.floor(random() * bytes.length)) : damage === 2 ? Buffer.concat([bytes, Buffer.from('x')]) : bytes);
      for (const args of [['verify', '--all'], ['show', 'seed-run'], ['tail', 'seed-run'], ['events', 'seed-run', '-o', 'jsonl']]) {
        const result = await roundtable([...args, '--store', directory]);
        expect([0, 1], `${args.join(' ')} after damage ${damage}: ${result.stderr}`).toContain(result.code);
        if (result.stderr !== '') expect(result.stderr).toMatch(/^roundtable: [A-Z_]+: /);
        expect(result.stderr + result.stdout).not.toMatch(STACK_LINE);
      }
    }
    console.log(`${cases} randomly damaged fs records: every command ended in exit 0 or 1 with a typed error`);
  });

  it('exits 1 on a damaged file (fs batch file, SQLite row) and never prints a stack', async () => {
    const damagedFs = join(scratch, 'damaged-fs');
    await writeRecord('fs', damagedFs, 'seed-run', 'seed');
    const batches = batchFiles(damagedFs);
    batches.sort();
    const victim = batches.find((path) => path.includes('seed-run'))!;
    writeFileSync(victim, Buffer.concat([readFileSync(victim), Buffer.from('garbage')]));
    const fsResult = await roundtable(['verify', 'seed-run', '--store', damagedFs]);
    expect(fsResult.code).toBe(1);
    expect(fsResult.stdout).toMatch(/FAIL {2}seed-run at revision \d+: CORRUPT_EVENT_STREAM/);

    const damagedSqlite = join(scratch, 'damaged.sqlite');
    await writeRecord('sqlite', damagedSqlite, 'seed-run', 'seed');
    const db = new Database(damagedSqlite);
    db.prepare("UPDATE events SET body = replace(body, 'Approved', 'Rejected') WHERE stream_id = 'seed-run' AND revision = 7").run();
    db.close();
    const sqliteResult = await roundtable(['verify', 'seed-run', '--store', damagedSqlite]);
    expect(sqliteResult.code).toBe(1);
    expect(sqliteResult.stdout).toContain('FAIL  seed-run at revision 7: CORRUPT_EVENT_STREAM');
    const show = await roundtable(['show', 'seed-run', '--store', damagedSqlite]);
    expect(show.code).toBe(1);
    expect(show.stdout).toContain('Outcome: unreadable CORRUPT_EVENT_STREAM');
    const events = await roundtable(['events', 'seed-run', '--store', damagedSqlite]);
    expect(events.code).toBe(1);
    expect(events.stderr).toMatch(/^roundtable: CORRUPT_EVENT_STREAM: /);
    // The follow paths over the damaged record end too, with the typed error and exit 1 (no hang).
    const tailFollow = startRoundtable(['tail', 'seed-run', '-f', '--store', damagedSqlite]);
    const eventsFollow = startRoundtable(['events', 'seed-run', '-f', '--store', damagedSqlite]);
    const [tailCode, eventsCode] = await Promise.all([
      new Promise<number | null>((resolve) => tailFollow.child.once('exit', resolve)),
      new Promise<number | null>((resolve) => eventsFollow.child.once('exit', resolve)),
    ]);
    expect([tailCode, eventsCode]).toEqual([1, 1]);
    expect(tailFollow.stderr()).toMatch(/^roundtable: CORRUPT_EVENT_STREAM: /);
    expect(eventsFollow.stderr()).toMatch(/^roundtable: CORRUPT_EVENT_STREAM: /);
    for (const output of [fsResult, sqliteResult, show, events]) expect(output.stderr + output.stdout).not.toMatch(STACK_LINE);
  });

  it('draws a progress bar on stderr when it is a terminal', async () => {
    if (!existsSync('/usr/bin/script')) {
      console.warn('skipped: no `script` command to give the CLI a terminal');
      return;
    }
    const command = `ROUNDTABLE_PROGRESS_AFTER_MS=0 ${JSON.stringify(process.execPath)} ${JSON.stringify(join(import.meta.dirname, '../dist/main.js'))} verify --all --store ${JSON.stringify(fsStore)}`;
    const output = await new Promise<string>((resolve) => {
      execFile('script', ['-qec', command, '/dev/null'], (_error, stdout) => resolve(stdout));
    });
    expect(output).toMatch(/verifying \[[#-]{30}\] \d+%/);
    expect(output).toContain('ok    seed-run');
    const rooms = `ROUNDTABLE_PROGRESS_AFTER_MS=0 ${JSON.stringify(process.execPath)} ${JSON.stringify(join(import.meta.dirname, '../dist/main.js'))} rooms seed-run --out ${JSON.stringify(join(scratch, 'tty-rooms'))} --store ${JSON.stringify(fsStore)}`;
    const roomsOutput = await new Promise<string>((resolve) => {
      execFile('script', ['-qec', rooms, '/dev/null'], (_error, stdout) => resolve(stdout));
    });
    expect(roomsOutput).toMatch(/projecting \[[#-]{30}\] \d+%/);
  });
});

describe('roundtable tail and events', () => {
  it('prints room lines as in room files, prefixed with the room when there are several', async () => {
    const seed = await roundtable(['tail', 'seed-run', '--store', sqliteStore]);
    expect(seed.stdout).toBe('writer [team/writer/1/0] @reviewer: Please review the draft.\nreviewer [team/reviewer/1/0] @writer: Approved: ship it.\n');
    const hostile = await roundtable(['tail', 'hostile-run', '--store', fsStore]);
    const lines = hostile.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^#review writer \[team\/writer\/1\/0\] @reviewer: <script>/);
    expect(lines[1]).toBe('#side writer [team/writer/1/1]: note\\nto self');
    expect((await roundtable(['tail', 'hostile-run', '--room', 'side', '--store', fsStore])).stdout).toBe('writer [team/writer/1/1]: note\\nto self\n');
    expect((await roundtable(['tail', 'seed-run', '-n', '1', '--store', fsStore])).stdout).toBe('reviewer [team/reviewer/1/0] @writer: Approved: ship it.\n');
    const jsonl = (await roundtable(['tail', 'seed-run', '-o', 'jsonl', '--store', fsStore])).stdout.trim().split('\n').map((line) => JSON.parse(line) as StoredEvent);
    expect(jsonl[1]).toEqual({ roomId: 'review', id: 'team/reviewer/1/0', sender: 'reviewer', mentions: ['writer'], text: 'Approved: ship it.', position: 'team/reviewer/1' });
  });

  it('prints the raw record as text, json and jsonl, after a revision', async () => {
    const text = await roundtable(['events', 'seed-run', '--store', fsStore]);
    expect(text.stdout.trim().split('\n')).toHaveLength(10);
    expect(text.stdout.split('\n')[1]).toMatch(/^2 {2}\S+Z {2}graph:node-dispatched {2}\{"nodeId":"writer","position":"team\/writer\/1"\}$/);
    const after = (await roundtable(['events', 'seed-run', '--after', '8', '-o', 'jsonl', '--store', sqliteStore])).stdout.trim().split('\n').map((line) => JSON.parse(line) as StoredEvent);
    expect(after.map((event: StoredEvent) => event.revision)).toEqual([9, 10]);
    expect(after[0]).toMatchObject({ envelopeVersion: 1, streamId: 'seed-run', revision: 9 });
    const json = JSON.parse((await roundtable(['events', 'seed-run', '-o', 'json', '--store', fsStore])).stdout);
    expect(json).toHaveLength(10);
  });

  it.each(ADAPTERS)('tail -f on %s prints a line soon after another process appends, and stops cleanly on SIGINT', async (adapter) => {
    const store = storeOf(adapter);
    const path = adapter === 'fs' ? fsStore : sqliteStore;
    await writeRecord(adapter, path, 'live-run', 'paused');
    const tail = startRoundtable(['tail', 'live-run', '-f', '--store', store]);
    const events = startRoundtable(['events', 'live-run', '-f', '-o', 'jsonl', '--store', store]);
    await tail.waitFor((out) => out.includes('Please review the draft.'), 'the first line');
    await events.waitFor((out) => out.split('\n').length > 7, 'the record so far');
    await writeRecord(adapter, path, 'live-run', 'resume');
    await tail.waitFor((out) => out.includes('Approved: ship it.'), 'the reviewer line appended by another process');
    await events.waitFor((out) => out.includes('"graph:node-resumed"'), 'the resumed event');
    expect(await tail.interrupt()).toBe(0);
    expect(await events.interrupt()).toBe(0);
    expect(tail.stdout()).toBe('writer [team/writer/1/0] @reviewer: Please review the draft.\nreviewer [team/reviewer/1/0] @writer: Approved: ship it.\n');
    expect(tail.stderr()).toBe('');
    const revisions = events.stdout().trim().split('\n').map((line) => (JSON.parse(line) as StoredEvent).revision);
    expect(revisions).toEqual(Array.from({ length: revisions.length }, (_, index) => index + 1));
  });
});

describe('roundtable rooms', () => {
  it('writes the room files and the index, and follows with --follow until SIGINT', async () => {
    const out = join(scratch, 'rooms-out');
    const result = await roundtable(['rooms', 'seed-run', '--out', out, '--store', fsStore, '-o', 'json']);
    expect(result.code).toBe(0);
    const { files, index, revision } = JSON.parse(result.stdout);
    expect(revision).toBe(10);
    expect(readFileSync(files[0].path, 'utf8')).toBe('writer [team/writer/1/0] @reviewer: Please review the draft.\nreviewer [team/reviewer/1/0] @writer: Approved: ship it.\n');
    expect(JSON.parse(readFileSync(index, 'utf8'))).toMatchObject({ runId: 'seed-run', revision: 10, rooms: [{ roomId: 'review' }] });

    await writeRecord('sqlite', sqliteStore, 'rooms-live', 'paused');
    const follow = startRoundtable(['rooms', 'rooms-live', '--out', out, '--follow', '--store', sqliteStore]);
    await follow.waitFor((stdout) => stdout.includes('review\t'), 'the room file');
    const roomFile = follow.stdout().split('\t')[1]!.split('\n')[0]!;
    await writeRecord('sqlite', sqliteStore, 'rooms-live', 'resume');
    for (let i = 0; i < 300 && !readFileSync(roomFile, 'utf8').includes('Approved'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readFileSync(roomFile, 'utf8')).toBe('writer [team/writer/1/0] @reviewer: Please review the draft.\nreviewer [team/reviewer/1/0] @writer: Approved: ship it.\n');
    expect(await follow.interrupt()).toBe(0);
  });
});

describe('bad usage and the read-only promise', () => {
  it('exits 2 with a message for bad usage and unusable stores', async () => {
    const cases: [string[], RegExp][] = [
      [['bogus'], /^roundtable: USAGE: unknown command 'bogus'/],
      [['\u001b[31mred'], /^roundtable: USAGE: unknown command '\\u001b\[31mred'/],
      [['show'], /^roundtable: USAGE: missing required argument 'runId'/],
      [['show', 'seed-run', '--store'], /^roundtable: USAGE: option '--store <url>' argument missing/],
      [['show', '../etc', '--store', fsStore], /^roundtable: USAGE: "..\/etc" is not a run id/],
      [['runs', '--namespace', 'a/b', '--store', fsStore], /^roundtable: USAGE: --namespace "a\/b" is not a namespace/],
      [['view', '--port', '99999', '--store', fsStore], /^roundtable: USAGE: --port must be an integer from 0 to 65535, not "99999"/],
      [['view', '--port', '-1', '--store', fsStore], /^roundtable: USAGE: --port must be an integer from 0 to 65535/],
      [['events', 'seed-run', '--after', '1e3', '--store', fsStore], /^roundtable: USAGE: --after must be a non-negative integer/],
      [['rooms', 'seed-run', '--out', '', '--store', fsStore], /^roundtable: USAGE: --out must name a directory/],
      [['runs'], /^roundtable: USAGE: No store given/],
      [['runs', '--store', join(scratch, 'missing')], /^roundtable: STORE_NOT_FOUND: /],
      [['runs', '--store', 'sqlite:' + join(scratch, 'missing.db')], /^roundtable: STORE_NOT_FOUND: /],
      [['runs', '--store', 'mysql://x'], /^roundtable: UNSUPPORTED_STORE: /],
      // The adapter is installed here (a dev dependency), so this is an unreachable server.
      [['runs', '--store', 'postgres://user:secret@127.0.0.1:1/db'], /^roundtable: [A-Z_]+: /],
      [['runs', '--store', fsStore, '-o', 'yaml'], /^roundtable: USAGE: -o must be one of text, json/],
      [['tail', 'seed-run', '-n', 'many', '--store', fsStore], /^roundtable: USAGE: -n must be a non-negative integer/],
      [['tail', 'seed-run', '--room', 'nope', '--store', fsStore], /^roundtable: USAGE: Run "seed-run" has no room "nope"/],
      [['verify', '--store', fsStore], /^roundtable: USAGE: Name the runs to verify, or pass --all/],
      [['show', 'no-such-run', '--store', fsStore], /^roundtable: RUN_NOT_FOUND: /],
      [['rooms', 'seed-run', '--store', fsStore], /^roundtable: USAGE: rooms needs --out/],
      [['events', 'seed-run', '-f', '-o', 'json', '--store', fsStore], /^roundtable: USAGE: -o json prints one array/],
    ];
    for (const [args, message] of cases) {
      const result = await roundtable(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr).not.toContain('secret');
      expect(result.stderr).not.toMatch(STACK_LINE);
    }
    expect((await roundtable(['--help'])).code).toBe(0);
    expect((await roundtable(['help'])).code).toBe(0);
    const bare = await roundtable([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^roundtable: USAGE: Name a command/m);
  });

  it('never appends: every read command leaves the fs and SQLite records byte for byte as they were', async () => {
    const fsBefore = snapshotTree(fsStore);
    const sqliteBefore = sqliteEvents(sqliteStore);
    const out = join(scratch, 'readonly-rooms');
    for (const store of [fsStore, sqliteStore]) {
      for (const args of [['runs'], ['show', 'seed-run'], ['show', 'waiting-run'], ['verify', '--all'], ['tail', 'seed-run'], ['events', 'paused-run'], ['rooms', 'waiting-run', '--out', out]]) {
        await roundtable([...args, '--store', store]);
      }
    }
    expect(snapshotTree(fsStore)).toEqual(fsBefore);
    expect(sqliteEvents(sqliteStore)).toEqual(sqliteBefore);
  });
});

describe('reading never creates or changes a store', () => {
  const READERS = [['runs'], ['show', 'seed-run'], ['events', 'seed-run'], ['tail', 'seed-run'], ['verify', '--all'], ['verify', 'seed-run'], ['events', 'seed-run', '-f'], ['view']];

  it('answers NOT_A_STORE, naming what it found, for every reading command over a location that is not a store, and changes nothing', async () => {
    const root = join(scratch, 'not-stores');
    mkdirSync(join(root, 'empty'), { recursive: true });
    mkdirSync(join(root, 'project', 'src'), { recursive: true });
    writeFileSync(join(root, 'project', 'package.json'), '{}');
    mkdirSync(join(root, 'junk', 'default'), { recursive: true });
    writeFileSync(join(root, 'junk', 'default', 'notes.txt'), 'x');
    writeFileSync(join(root, 'notes.db'), 'some text');
    writeFileSync(join(root, 'fresh.db'), '');
    for (const [name, journal] of [['app.db', 'delete'], ['app.sqlite3', 'wal']] as const) {
      const db = new Database(join(root, name));
      db.pragma(`journal_mode = ${journal}`);
      db.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE orders (id INTEGER PRIMARY KEY)');
      db.close();
    }
    const found: [string, RegExp][] = [
      [join(root, 'empty'), /it is an empty directory/],
      [join(root, 'project'), /it holds 2 entries \("package\.json", "src\/"\), none of them a namespace folder/],
      [`fs:${join(root, 'junk')}`, /it holds 1 entry \("default\/"\), not a namespace folder/],
      [join(root, 'notes.db'), /it is a file of 9 bytes that is not a SQLite database/],
      [join(root, 'fresh.db'), /it is an empty file/],
      [join(root, 'app.db'), /it is a SQLite database whose 2 tables are "orders", "users", without roundtable_migrations/],
      // No .db or .sqlite name: recognised as SQLite by its header, as before.
      [join(root, 'app.sqlite3'), /it is a SQLite database whose 2 tables are "orders", "users"/],
    ];
    const before = snapshotTree(root);
    for (const [store, what] of found) {
      // Every reading command over one folder and one database; `runs` over the rest (the fuzz test mixes them at random).
      const readers = store.endsWith('project') || store.endsWith('app.db') ? READERS : [['runs']];
      for (const args of readers) {
        // In process, but for one command of each location: the binary prints the same.
        const result = await (args === readers[0] ? roundtable : roundtableInProcess)([...args, '--store', store]);
        expect(result.code, `${args.join(' ')} --store ${store}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(/^roundtable: NOT_A_STORE: /);
        expect(result.stderr).toMatch(what);
        expect(result.stdout).toBe('');
      }
    }
    const rooms = await roundtable(['rooms', 'seed-run', '--out', join(scratch, 'not-store-rooms'), '--store', join(root, 'app.db')]);
    expect(rooms.stderr).toMatch(/^roundtable: NOT_A_STORE: /);
    expect(snapshotTree(root)).toEqual(before);
  });

  it('reads a namespace that does not exist as empty, without making its folder, and RUN_NOT_FOUND names the namespace', async () => {
    const before = snapshotTree(fsStore);
    const sqliteBefore = snapshotTree(sqliteStore);
    for (const [, store] of stores()) {
      const runs = await roundtable(['runs', '--store', store, '--namespace', 'Default']);
      expect([runs.code, runs.stdout, runs.stderr]).toEqual([0, 'No runs in namespace "Default".\n', '']);
      for (const args of [['show', 'seed-run'], ['events', 'seed-run'], ['tail', 'seed-run'], ['verify', 'seed-run']]) {
        const result = await roundtable([...args, '--store', store, '--namespace', 'Default']);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr).toBe('roundtable: RUN_NOT_FOUND: The store has no run "seed-run" in namespace "Default": `roundtable runs --namespace Default` lists its runs (--namespace picks another namespace).\n');
      }
      const missing = await roundtable(['show', 'no-such-run', '--store', store]);
      expect(missing.stderr).toContain('in namespace "default": `roundtable runs` lists its runs');
    }
    expect(snapshotTree(fsStore)).toEqual(before);
    expect(existsSync(join(fsStore, 'Default~1'))).toBe(false);
    expect(snapshotTree(sqliteStore)).toEqual(sqliteBefore);
  });
});
