import { request } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@roundtable/storage';
import { assertBuilt, roundtableInProcess, startRoundtable, startServedRecord, writeRecord } from './__fixtures__/helpers.js';
import type { RunningCli } from './__fixtures__/helpers.js';

// `roundtable view --actions` (SPEC 20): the page answers a pause and cancels a run while a
// `serve()` process elsewhere holds the run, which goes on by itself and shows live; every POST
// needs the token of the printed URL, the viewer's own Origin and a JSON body of at most 1 MiB.

const CHROMIUM = process.env.ROUNDTABLE_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const POSITION = 'team/reviewer/1';

let scratch: string;
let store: string;
let viewer: RunningCli;
let url: URL;
let browser: Browser;

async function events(runId: string): Promise<StoredEvent[]> {
  const result = await roundtableInProcess(['events', runId, '-o', 'jsonl', '--store', store]);
  return result.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as StoredEvent);
}

async function pausedAt(runId: string): Promise<number> {
  for (;;) {
    const paused = (await events(runId)).findLast((event) => event.type === 'graph:node-paused');
    if (paused !== undefined) return paused.revision;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function post(path: string, body: string | Buffer, headers: Record<string, string>): Promise<{ status: number; error: string | null; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: url.port, path, method: 'POST', headers: { Host: url.host, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, error: (JSON.parse(text || '{}') as { error?: { code: string } }).error?.code ?? null, body: text }));
    });
    // A body refused part way may have its connection closed under the rest of it.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve({ status: 413, error: 'BODY_TOO_LARGE', body: '' }) : reject(error)));
    req.end(body);
  });
}

describe('roundtable view --actions', () => {
  beforeAll(async () => {
    assertBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'roundtable-view-actions-'));
    store = join(scratch, 'record');
    await writeRecord('fs', store, 'paused-run', 'paused');
    viewer = startRoundtable(['view', '--actions', '--store', store]);
    await viewer.waitFor((out) => /http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}/.test(out), 'the viewer URL with its token');
    url = new URL(/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}/.exec(viewer.stdout())![0]);
    if (hasChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (viewer !== undefined) expect(await viewer.interrupt()).toBe(0);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses a POST without the token, from another origin, too large, not JSON or bound to another pause, writing nothing', async () => {
    const token = url.searchParams.get('token')!;
    const own = { Origin: url.origin, 'x-roundtable-token': token };
    const at = await pausedAt('paused-run');
    const before = await events('paused-run');
    const answer = JSON.stringify({ position: POSITION, value: { approved: true }, pausedAt: at });
    const path = '/api/runs/paused-run/answer';
    expect(await post(path, answer, { Origin: url.origin })).toMatchObject({ status: 403, error: 'BAD_TOKEN' });
    const wrong = token.replace(/^./, (first) => (first === '0' ? '1' : '0'));
    expect(await post(path, answer, { ...own, 'x-roundtable-token': wrong })).toMatchObject({ status: 403, error: 'BAD_TOKEN' });
    expect(await post(path, answer, { ...own, Origin: 'http://evil.example' })).toMatchObject({ status: 403, error: 'ORIGIN_NOT_ALLOWED' });
    expect(await post(path, answer, { 'x-roundtable-token': token })).toMatchObject({ status: 403, error: 'ORIGIN_NOT_ALLOWED' });
    expect(await post(path, Buffer.alloc((1 << 20) + 1, 0x20), own)).toMatchObject({ status: 413, error: 'BODY_TOO_LARGE' });
    expect(await post(path, '{"position":', own)).toMatchObject({ status: 400, error: 'BAD_JSON' });
    expect(await post(path, JSON.stringify({ position: POSITION, value: true }), own)).toMatchObject({ status: 400, error: 'USAGE' });
    expect(await post(path, JSON.stringify({ position: POSITION, value: true, pausedAt: at - 1 }), own)).toMatchObject({ status: 409, error: 'STALE_ANSWER' });
    expect(await post('/api/runs/no-such-run/answer', answer, own)).toMatchObject({ status: 404, error: 'RUN_NOT_FOUND' });
    expect(await post('/api/runs/paused-run/cancel', JSON.stringify({ reason: '' }), own)).toMatchObject({ status: 400, error: 'USAGE' });
    const fork = '/api/runs/paused-run/fork';
    expect(await post(fork, JSON.stringify({ at: 0, to: 'copy' }), own)).toMatchObject({ status: 400, error: 'USAGE' });
    expect(await post(fork, JSON.stringify({ at: 2, to: 'no spaces' }), own)).toMatchObject({ status: 400, error: 'USAGE' });
    expect(await post(fork, JSON.stringify({ at: before.length + 1, to: 'copy' }), own)).toMatchObject({ status: 409, error: 'INVALID_FORK_POINT' });
    expect(await post(fork, JSON.stringify({ at: 2, to: 'paused-run' }), own)).toMatchObject({ status: 409, error: 'RUN_EXISTS' });
    expect(await post(fork, JSON.stringify({ at: 2, to: 'copy' }), { Origin: url.origin })).toMatchObject({ status: 403, error: 'BAD_TOKEN' });
    expect(await events('copy')).toEqual([]);
    expect(await events('paused-run')).toEqual(before);
    expect(await events('no-such-run')).toEqual([]);
    // With everything right, it is the same append as roundtable answer.
    const written = await post(path, answer, own);
    expect(written.status, written.body).toBe(200);
    expect(JSON.parse(written.body)).toEqual({ revision: before.length + 1, pausedAt: at });
    expect((await events('paused-run')).at(-1)).toMatchObject({ type: 'graph:node-resumed', payload: { position: POSITION, value: { approved: true } } });
    expect(await post(path, answer, own)).toMatchObject({ status: 409, error: 'STALE_ANSWER' });
  });

  it.skipIf(!hasChromium)('a person approves a pause on the page while serve() in another process holds the run: it goes on by itself, and the page shows it live', async () => {
    const served = await startServedRecord('fs', store, 'served-run');
    await pausedAt('served-run');
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await page.goto(`${url.href}#/run/served-run`);
    await page.locator('.subtitle', { hasText: 'answers, cancels and forks on' }).waitFor();
    await page.locator(`[data-answer="${POSITION}"] .answer-approve`).click();
    const ended = await served.ended;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain(JSON.stringify({ kind: 'complete', given: [{ approved: true }] }));
    await page.locator('h1 .badge', { hasText: /^complete$/ }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.room[data-room="review"] pre').textContent()).toContain('Approved: ship it.');
    expect(await page.locator('.cancel-form').count()).toBe(0);
    await page.close();
  });

  it.skipIf(!hasChromium)('a person forks a paused run at its pause from the state view, and answers the fork\'s pause otherwise than the parent\'s', async () => {
    await writeRecord('fs', store, 'fork-me', 'paused');
    const at = await pausedAt('fork-me');
    const parent = await events('fork-me');
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(`${url.href}#/run/fork-me`);
    await page.locator('.state-revision').fill(String(at));
    await page.locator('.fork-to').fill('page-fork');
    await page.locator('.fork-run').click();
    // The page goes to the new run: a fork of fork-me, paused where its parent is.
    await page.locator('.fork-of[data-fork-of="fork-me"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('.fork-of').textContent()).toBe(`A fork of fork-me at revision ${at}`);
    expect(await page.locator('h1').textContent()).toContain('page-fork');
    const fork = await events('page-fork');
    expect(fork.slice(0, at)).toEqual(parent.slice(0, at));
    expect(fork).toHaveLength(at + 1);
    expect(fork[at]).toMatchObject({ type: 'graph:run-forked', revision: at + 1, payload: { from: 'fork-me', at } });
    await page.locator(`[data-answer="${POSITION}"] .answer-reject`).click();
    await page.waitForFunction((head) => Number(document.querySelector<HTMLElement>('#app')?.dataset.revision) > head, at + 1, { timeout: 30_000 });
    expect((await events('page-fork')).at(-1)).toMatchObject({ revision: at + 2, type: 'graph:node-resumed', payload: { position: POSITION, value: { approved: false } } });
    expect(await events('fork-me')).toEqual(parent);
    // A fork into a run that exists is refused on the page, nothing written.
    await page.goto(`${url.href}#/run/fork-me`);
    await page.waitForFunction(() => document.querySelector<HTMLElement>('#app')?.dataset.run === 'fork-me', undefined, { timeout: 30_000 });
    await page.locator('.fork-to').fill('page-fork');
    await page.locator('.fork-run').click();
    await page.locator('.fork-status .problem', { hasText: 'RUN_EXISTS' }).waitFor({ timeout: 30_000 });
    expect(await events('fork-me')).toEqual(parent);
    await page.close();
  });

  it.skipIf(!hasChromium)('a person cancels a served run on the page: the serve() process ends with cancelled', async () => {
    const served = await startServedRecord('fs', store, 'cancelled-run');
    await pausedAt('cancelled-run');
    const page = await browser.newPage();
    await page.goto(`${url.href}#/run/cancelled-run`);
    await page.locator('.cancel-form input').fill('not this week');
    await page.locator('.cancel-form button').click();
    const ended = await served.ended;
    expect(ended.stdout).toContain(JSON.stringify({ kind: 'cancelled', given: [] }));
    await page.locator('h1 .badge', { hasText: /^cancelled$/ }).waitFor({ timeout: 30_000 });
    expect((await events('cancelled-run')).find((event) => event.type === 'graph:run-cancelled')?.payload).toEqual({ reason: 'not this week' });
    await page.close();
  });
});
