import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@roundtable/storage';
import { assertBuilt, roundtableInProcess, startRoundtable, writeRecord } from './__fixtures__/helpers.js';

// SIGKILL of `roundtable view --actions` while a POST answer is in flight (SPEC 20's fault
// form): the answer is one append, so it is either in the record once or not at all. The page's
// retry against a restarted viewer (same answer, same pausedAt) then writes it (200) or is
// STALE_ANSWER (409) because the killed one had written it. Never two answers, never half of one.
// 6 kills per adapter here, 100 with FAULT_SCALE=full.

const FULL = process.env.FAULT_SCALE === 'full';
const ROUNDS = FULL ? 100 : 6;
// A hang guard: each round starts a record writer and two viewers, seconds apiece on a loaded machine.
const HANG_MS = FULL ? 3_600_000 : 300_000;
const POSITION = 'team/reviewer/1';
let scratch: string;

beforeAll(() => {
  assertBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-view-kills-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function events(store: string, runId: string): Promise<StoredEvent[]> {
  const result = await roundtableInProcess(['events', runId, '-o', 'jsonl', '--store', store]);
  return result.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as StoredEvent);
}

async function startViewer(store: string): Promise<{ url: URL; kill: () => Promise<void>; stop: () => Promise<number | null> }> {
  const viewer = startRoundtable(['view', '--actions', '--store', store]);
  await viewer.waitFor((out) => /\?token=[0-9a-f]{32}/.test(out), 'the viewer URL');
  const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}/.exec(viewer.stdout())![0]);
  return {
    url,
    kill: () =>
      new Promise((resolve) => {
        viewer.child.once('close', () => resolve());
        viewer.child.kill('SIGKILL');
      }),
    stop: () => viewer.interrupt(),
  };
}

/** POSTs the answer; a connection the kill cut is `null`. */
function postAnswer(url: URL, pausedAt: number, runId: string): Promise<{ status: number; code: string | null } | null> {
  const body = JSON.stringify({ position: POSITION, value: { approved: true }, pausedAt });
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port: url.port, path: `/api/runs/${runId}/answer`, method: 'POST', headers: { Host: url.host, Origin: url.origin, 'x-roundtable-token': url.searchParams.get('token')!, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, code: (JSON.parse(text || '{}') as { error?: { code: string } }).error?.code ?? null }));
        response.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    req.end(body);
  });
}

describe.each(['fs', 'sqlite'] as const)('SIGKILL of view --actions mid-POST on %s', (adapter) => {
  it(`records each answer once or not at all over ${ROUNDS} kills, and the retry completes it`, async () => {
    const path = join(scratch, adapter === 'fs' ? 'record' : 'record.sqlite');
    const store = `${adapter}:${path}`;
    const outcomes = { writtenBeforeKill: 0, writtenOnRetry: 0 };
    // Kills land anywhere in a POST: uniformly over 1.5 × the time the last written answer took
    // on this machine (the retry's), so a loaded machine stretches the range with it.
    let postMs = 100;
    for (let round = 0; round < ROUNDS; round++) {
      const runId = `killed-post-${round}`;
      await writeRecord(adapter, path, runId, 'paused');
      const pausedAt = (await events(store, runId)).findLast((event) => event.type === 'graph:node-paused')!.revision;
      const first = await startViewer(store);
      const inFlight = postAnswer(first.url, pausedAt, runId);
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 1.5 * postMs)));
      await first.kill();
      const firstReply = await inFlight;
      const second = await startViewer(store);
      const sent = performance.now();
      const retry = await postAnswer(second.url, pausedAt, runId);
      if (retry?.status === 200) postMs = performance.now() - sent;
      expect(await second.stop()).toBe(0);
      // The retry writes it, or finds it written by the killed viewer: nothing else.
      expect(retry === null ? 'no reply' : retry.status === 200 ? '200' : `${retry.status} ${retry.code}`).toMatch(/^(200|409 STALE_ANSWER)$/);
      if (retry?.status === 200) outcomes.writtenOnRetry++;
      else outcomes.writtenBeforeKill++;
      // A reply the first viewer did send said it wrote it; then the retry must be stale.
      if (firstReply?.status === 200) expect(retry?.status).toBe(409);
      const record = await events(store, runId);
      expect(record.filter((event) => event.type === 'graph:node-resumed')).toHaveLength(1);
      expect(record.at(-1)).toMatchObject({ type: 'graph:node-resumed', payload: { position: POSITION, value: { approved: true } } });
      const verified = await roundtableInProcess(['verify', runId, '--store', store]);
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    }
    console.log(`view kills (${adapter}): ${ROUNDS} kills; answer written before the kill ${outcomes.writtenBeforeKill}, on the retry ${outcomes.writtenOnRetry}`);
  }, HANG_MS);
});
