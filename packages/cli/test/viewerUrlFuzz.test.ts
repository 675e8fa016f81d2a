import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, startRoundtable, writeRecord } from './__fixtures__/helpers.js';
import type { RunningCli } from './__fixtures__/helpers.js';
import { anyString, firstUnprintable } from './__fixtures__/unprintable.js';

// Random request targets sent byte for byte to a running `roundtable view` (the built binary):
// malformed and overlong percent-encodings, raw Unicode and raw bytes, dot segments, queries.
// Every answer is a 2xx, 3xx or 4xx, a 4xx is JSON with a code, and nothing is ever a 5xx or
// a dropped connection. Needs no browser.

let scratch: string;
let viewer: RunningCli;
let port: number;

beforeAll(async () => {
  assertBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-urls-'));
  const store = join(scratch, 'record');
  await writeRecord('fs', store, 'seed-run', 'seed');
  await writeRecord('fs', store, 'controls-run', 'controls');
  viewer = startRoundtable(['view', '--store', store]);
  await viewer.waitFor((out) => /http:\/\/127\.0\.0\.1:\d+\//.test(out), 'the viewer URL');
  port = Number(/127\.0\.0\.1:(\d+)/.exec(viewer.stdout())![1]);
}, 120_000);

afterAll(async () => {
  if (viewer !== undefined) expect(await viewer.interrupt()).toBe(0);
  rmSync(scratch, { recursive: true, force: true });
});

interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (lineEnd < 0 || !(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Sends `target` as the request target, byte for byte, and reads the answer (a live stream only to its headers). */
function rawGet(target: Buffer, host = `127.0.0.1:${port}`): Promise<RawResponse | 'no answer'> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(raw.subarray(0, Math.max(0, headEnd)).toString('latin1'));
      if (headEnd < 0 || status === null) return resolve('no answer');
      const headers: Record<string, string> = {};
      for (const line of raw.subarray(0, headEnd).toString('latin1').split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = raw.subarray(headEnd + 4);
      resolve({ status: Number(status[1]), headers, body: (headers['transfer-encoding'] === 'chunked' ? dechunk(body) : body).toString('utf8') });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Server-sent events never end by themselves: the headers are the answer.
      const head = Buffer.concat(chunks).toString('latin1');
      if (head.includes('\r\n\r\n') && /content-type: text\/event-stream/i.test(head)) {
        socket.destroy();
        finish();
      }
    });
    socket.on('end', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? finish() : reject(error)));
    socket.write(Buffer.concat([Buffer.from('GET '), target, Buffer.from(` HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)]));
  });
}

const percent = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).padStart(2, '0')}`),
  fc.constantFrom('%', '%G1', '%E0%A4%A', '%E0%A4', '%C0%AF', '%ED%A0%80', '%F4%90%80%80', '%FF', '%00', '%2e', '%2E%2E', '%2f', '%5c', '%25', '%u0041', '%%', '%0d%0a'),
);
const part: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('seed-run', 'controls-run', 'no-such-run', '.', '..', '', 'api', 'runs', 'events', 'state', 'rooms', 'live', 'viewer.js', '__proto__').map((text) => Buffer.from(text)) },
  { weight: 12, arbitrary: fc.array(percent, { minLength: 1, maxLength: 4 }).map((escapes) => Buffer.from(escapes.join(''))) },
  { weight: 12, arbitrary: anyString.map((text) => Buffer.from(encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '?')))) },
  // Raw, unencoded: Unicode as UTF-8, and bytes that are not UTF-8 at all (spaces and CR LF included).
  { weight: 1, arbitrary: anyString.map((text) => Buffer.from(text, 'utf8')) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 6 }).map((bytes) => Buffer.from(bytes)) },
);
const segment = fc.array(part, { maxLength: 3 }).map((parts) => Buffer.concat(parts));
const queryValue = fc.oneof(
  fc.oneof(fc.integer(), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })).map(String),
  fc.constantFrom('', '-1', '1e3', '1.5', '0x10', '3', '9007199254740993'),
  percent,
);
const query = fc.oneof(
  fc.constant(''),
  fc.constant('?'),
  fc.tuple(fc.constantFrom('after', 'revision', 'x', ''), queryValue).map(([name, value]) => `?${name}=${value}`),
  fc.tuple(queryValue, queryValue).map(([a, b]) => `?after=${a}&revision=${b}&after=${b}`),
);
/** Past Node's 16 KiB header limit (a 431), or just under it; mostly nothing. */
const padding = fc.oneof({ weight: 18, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(20_000) }, { weight: 1, arbitrary: fc.constant(15_000) });
/** A run's endpoints, with a random id segment and query: what the API routes. */
const runTarget = fc
  .tuple(
    fc.oneof(fc.constantFrom('seed-run', 'controls-run').map((id) => Buffer.from(id)), fc.array(part, { minLength: 1, maxLength: 3 }).map((parts) => Buffer.concat(parts))),
    fc.constantFrom('', '/events', '/state', '/rooms', '/live', '/', '/events/x'),
    query,
  )
  .map(([id, endpoint, search]) => Buffer.concat([Buffer.from('/api/runs/'), id, Buffer.from(endpoint + search)]));
/** Anything: several segments after a prefix, dot segments and raw bytes included. */
const anyTarget = fc
  .tuple(
    fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom('/api/runs/', '/api/runs', '/api/', '/', '//', '/api/runs/seed-run/', '/api/runs/controls-run/') },
      // Not origin-form: mostly refused by Node's parser, the absolute form served.
      { weight: 1, arbitrary: fc.constantFrom('', '*', 'http://evil.example/api/runs/') },
    ),
    fc.array(segment, { maxLength: 4 }),
    query,
  )
  .map(([prefix, segments, search]) => Buffer.concat([Buffer.from(prefix), Buffer.concat(segments.flatMap((bytes, index) => (index === 0 ? [bytes] : [Buffer.from('/'), bytes]))), Buffer.from(search)]));
const target = fc.tuple(fc.oneof({ weight: 3, arbitrary: runTarget }, { weight: 1, arbitrary: anyTarget }), padding).map(([bytes, length]) => Buffer.concat([bytes, Buffer.alloc(length, 'a')]));

const REQUESTS = process.env.FAULT_SCALE === 'full' ? 3000 : 300;

describe('the viewer on random URLs', () => {
  it(`answers ${REQUESTS} random request targets with a 2xx, 3xx or a JSON 4xx with a code, never a 5xx`, { timeout: 60_000 + REQUESTS * 200 }, async () => {
    const host = fc.oneof({ weight: 9, arbitrary: fc.constant(`127.0.0.1:${port}`) }, { weight: 1, arbitrary: fc.constantFrom(`localhost:${port}`, 'evil.example', `127.0.0.1:${port + 1}`) });
    await fc.assert(
      fc.asyncProperty(target, host, async (bytes, hostHeader) => {
        const answer = await rawGet(bytes, hostHeader);
        const what = `GET ${JSON.stringify(bytes.toString('latin1').slice(0, 200))} (Host ${hostHeader}) → ${answer === 'no answer' ? answer : `${answer.status} ${answer.body.slice(0, 300)}`}`;
        expect(answer, what).not.toBe('no answer');
        if (answer === 'no answer') return;
        expect(answer.status, what).toBeGreaterThanOrEqual(200);
        expect(answer.status, what).toBeLessThan(500);
        if (answer.status >= 400) {
          expect(answer.headers['content-type'], what).toMatch(/^application\/json/);
          expect((JSON.parse(answer.body) as { error: { code: string } }).error.code, what).toMatch(/^[A-Z][A-Z_]*$/);
        }
        if (answer.headers['content-type']?.startsWith('application/json') === true) expect(firstUnprintable(answer.body), what).toBeNull();
      }),
      { numRuns: REQUESTS },
    );
    expect(viewer.child.exitCode).toBeNull();
    const runs = await rawGet(Buffer.from('/api/runs'));
    expect(runs !== 'no answer' && runs.status).toBe(200);
  });

  it('answers the malformed percent-encoding of issue 22 and an unparseable target with a 400', async () => {
    for (const path of ['/api/runs/%E0%A4%A', '/api/runs/%E0%A4%A/events', '//[']) {
      const answer = await rawGet(Buffer.from(path));
      expect(answer !== 'no answer' && answer.status, path).toBe(400);
      if (answer !== 'no answer') expect(JSON.parse(answer.body).error.code).toBe('USAGE');
    }
    const spaced = await rawGet(Buffer.from('/a b'));
    expect(spaced !== 'no answer' && [spaced.status, JSON.parse(spaced.body).error.code]).toEqual([400, 'BAD_REQUEST']);
  });
});
