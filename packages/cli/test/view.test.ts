import { request } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, startRoundtable, writeRecord } from './__fixtures__/helpers.js';
import type { RunningCli } from './__fixtures__/helpers.js';

const CHROMIUM = process.env.ROUNDTABLE_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`Skipping the viewer's browser tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set ROUNDTABLE_CHROMIUM).`);

/** Where the screenshots go: the package's test output folder (ignored by git). */
const SCREENSHOTS = fileURLToPath(new URL('../test-output/', import.meta.url));

let scratch: string;
let store: string;
let viewer: RunningCli;
let url: string;
let browser: Browser;

function files(path: string): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (current: string) => {
    if (statSync(current).isDirectory()) for (const name of readdirSync(current)) visit(join(current, name));
    else found[current] = readFileSync(current).toString('base64');
  };
  visit(path);
  return found;
}

function damageFirstBatch(directory: string, runId: string): void {
  const batches: string[] = [];
  const visit = (path: string) => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) visit(child);
      else if (child.includes(runId) && name.endsWith('.batch')) batches.push(child);
    }
  };
  visit(directory);
  const victim = batches.sort()[0]!;
  writeFileSync(victim, Buffer.concat([readFileSync(victim), Buffer.from('damage')]));
}

async function openRun(runId: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  await page.goto(`${url}#/run/${encodeURIComponent(runId)}`);
  await page.waitForSelector('h1 .badge');
  return page;
}

function httpGet(path: string, host: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { Host: host } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(!hasChromium)('roundtable view in a real Chromium', () => {
  beforeAll(async () => {
    assertBuilt();
    mkdirSync(SCREENSHOTS, { recursive: true });
    scratch = mkdtempSync(join(tmpdir(), 'roundtable-view-'));
    store = join(scratch, 'record');
    await writeRecord('fs', store, 'seed-run', 'seed');
    await writeRecord('fs', store, 'hostile-run', 'hostile');
    await writeRecord('fs', store, 'live-run', 'paused');
    viewer = startRoundtable(['view', '--store', store]);
    await viewer.waitFor((out) => /http:\/\/127\.0\.0\.1:\d+\//.test(out), 'the viewer URL');
    url = /http:\/\/127\.0\.0\.1:\d+\//.exec(viewer.stdout())![0];
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (viewer !== undefined) expect(await viewer.interrupt()).toBe(0);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lists the runs with their status', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForSelector('table.runs');
    const status = (runId: string) => page.locator(`tr[data-run="${runId}"] .badge`).textContent();
    expect(await status('seed-run')).toBe('complete');
    expect(await status('live-run')).toBe('paused needs approval');
    expect(await status('hostile-run')).toBe('complete');
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-runs.png') });
    await page.close();
  });

  it("shows the seed run's lanes, attempts, room lines, events and the state after a chosen revision", async () => {
    const page = await openRun('seed-run');
    expect(await page.locator('.lane').count()).toBe(2);
    expect(await page.locator('.lane[data-member="writer"] .attempt').count()).toBe(2);
    expect(await page.locator('.lane[data-member="reviewer"] .attempt').count()).toBe(1);
    expect(await page.locator('.lane[data-member="writer"] .attempt').first().textContent()).toContain('completed');
    expect(await page.locator('.room[data-room="review"] pre').textContent()).toBe(
      'writer [team/writer/1/0] @reviewer: Please review the draft.\nreviewer [team/reviewer/1/0] @writer: Approved: ship it.\n',
    );
    expect(await page.locator('details.event').count()).toBe(10);
    await page.locator('details.event[data-revision="1"] summary').click();
    expect(JSON.parse((await page.locator('details.event[data-revision="1"] pre').textContent())!)).toMatchObject({ revision: 1, type: 'graph:run-started' });
    await page.locator('.state-form input').fill('4');
    await page.locator('.state-form button').click();
    await page.waitForSelector('.state-members');
    expect(await page.locator('.state-members tr[data-member="writer"]').textContent()).toContain('idle');
    expect(await page.locator('.state-members tr[data-member="reviewer"]').textContent()).toContain('yes');
    expect(await page.locator('.state-output').textContent()).toContain('After revision 4 of 10');
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-seed-run.png'), fullPage: true });
    await page.close();
  });

  it('shows a message with <script> and terminal escapes as text', async () => {
    const page = await openRun('hostile-run');
    const room = await page.locator('.room[data-room="review"] pre').textContent();
    expect(room).toContain('<script>window.pwned = true</script>');
    expect(room).toContain('\\u001b[31mred\\u001b[0m');
    expect(await page.locator('.room[data-room="side"] pre').textContent()).toBe('writer [team/writer/1/1]: note\\nto self\n');
    expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(await page.evaluate("document.body.innerText.includes('\\u001b')")).toBe(false);
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-hostile-run.png'), fullPage: true });
    await page.close();
  });

  it('shows a new turn appended by another process while the page is open, live', async () => {
    const page = await openRun('live-run');
    expect(await page.locator('h1 .badge').textContent()).toBe('paused needs approval');
    expect(await page.locator('[data-open="team/reviewer/1"] .request').textContent()).toContain('Ship the notes?');
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-live-paused.png'), fullPage: true });
    await writeRecord('fs', store, 'live-run', 'resume');
    const appended = Date.now();
    // A generous wait, not a timing assertion; the latency is printed for the record.
    await page.locator('.room[data-room="review"] pre', { hasText: 'Approved: ship it.' }).waitFor({ timeout: 15_000 });
    console.log(`viewer showed the new turn ${Date.now() - appended} ms after the other process's append finished`);
    await page.locator('h1 .badge', { hasText: /^complete$/ }).waitFor({ timeout: 15_000 });
    expect(await page.locator('.lane[data-member="reviewer"] .attempt').last().getAttribute('data-status')).toBe('completed');
    await page.screenshot({ path: join(SCREENSHOTS, 'viewer-live-complete.png'), fullPage: true });
    await page.close();
  });

  it('shows the typed error of a damaged record instead of a blank page, on the run and in the list', async () => {
    const damaged = join(scratch, 'damaged');
    await writeRecord('fs', damaged, 'damaged-run', 'seed');
    damageFirstBatch(damaged, 'damaged-run');
    const other = startRoundtable(['view', '--store', damaged]);
    try {
      await other.waitFor((out) => /http:\/\/127\.0\.0\.1:\d+\//.test(out), 'the viewer URL');
      const otherUrl = /http:\/\/127\.0\.0\.1:\d+\//.exec(other.stdout())![0];
      const page = await browser.newPage({ viewport: { width: 1100, height: 600 } });
      await page.goto(`${otherUrl}#/run/damaged-run`);
      await page.waitForSelector('.problem');
      const problem = await page.locator('.problem').first().textContent();
      expect(problem).toContain('CORRUPT_EVENT_STREAM');
      expect(problem).toContain('damaged');
      expect(await page.locator('h1 .badge').textContent()).toBe('unreadable CORRUPT_EVENT_STREAM');
      await page.screenshot({ path: join(SCREENSHOTS, 'viewer-damaged-run.png'), fullPage: true });
      // The fs adapter's listing fails closed when a stream's head cannot be read: the list says why.
      await page.goto(`${otherUrl}#/`);
      // The run page had three problem boxes (report, rooms, events); the list has one.
      await expect.poll(() => page.locator('.problem').count(), { timeout: 15_000 }).toBe(1);
      expect(await page.locator('.problem').textContent()).toContain('CORRUPT_EVENT_STREAM');
      await page.screenshot({ path: join(SCREENSHOTS, 'viewer-damaged-list.png') });
      await page.close();
    } finally {
      expect(await other.interrupt()).toBe(0);
    }
  });

  it('refuses other hosts (DNS rebinding) and every method but GET, and never appends', async () => {
    const before = files(store);
    expect((await httpGet('/api/runs', `127.0.0.1:${new URL(url).port}`)).status).toBe(200);
    expect((await httpGet('/api/runs', `localhost:${new URL(url).port}`)).status).toBe(200);
    for (const host of ['evil.example', `evil.example:${new URL(url).port}`, '127.0.0.1.nip.io', `127.0.0.2:${new URL(url).port}`]) {
      const refused = await httpGet('/api/runs', host);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error.code).toBe('HOST_NOT_ALLOWED');
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) expect((await httpGet('/api/runs/seed-run', `127.0.0.1:${new URL(url).port}`, method)).status).toBe(405);
    const page = await openRun('seed-run');
    await page.close();
    expect(files(store)).toEqual(before);
  });
});
