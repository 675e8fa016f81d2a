import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isStorageError } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import { createFsStorage } from './index.js';
import { collect, listFiles, newEvents, removeTempDirectories, tempDirectory } from './__fixtures__/support.js';

afterAll(removeTempDirectories);

const BATCH_SIZES = [2, 1, 3, 2];

/** A stream `run` of four batches (revisions 1–8) and a stream `other`, and the run folder. */
async function damagedFixture(): Promise<{ directory: string; folder: string; files: string[]; warm: RunStorage }> {
  const directory = tempDirectory();
  const storage = createFsStorage({ directory });
  let head = 0;
  for (const [index, size] of BATCH_SIZES.entries()) head = await storage.append('run', head, newEvents(`b${index}`, size));
  await storage.append('other', 0, newEvents('o', 2));
  const folder = join(directory, 'default', 'run');
  const warm = createFsStorage({ directory });
  expect(await warm.head('run')).toBe(8);
  // The batch files (the head marker beside them is damaged in its own cases).
  return { directory, folder, files: listFiles(folder).filter((name) => name.endsWith('.batch')), warm };
}

/** What reading `run` back through `storage` does: the events, or the error's code (a non-storage error is a bug). */
async function readOutcome(storage: RunStorage): Promise<string> {
  try {
    await storage.head('run');
    const events = await collect(storage.read('run'));
    return `read ${events.length} events`;
  } catch (error) {
    if (!isStorageError(error)) throw error;
    return error.code;
  }
}

async function appendOutcome(storage: RunStorage): Promise<string> {
  try {
    return `appended at ${await storage.append('run', 8, newEvents('late', 1))}`;
  } catch (error) {
    if (!isStorageError(error)) throw error;
    return error.code;
  }
}

/** A fresh instance, and one that had read the stream before the damage, both fail closed. */
async function expectFailsClosed(directory: string, warm: RunStorage): Promise<void> {
  const fresh = createFsStorage({ directory });
  expect(await readOutcome(fresh)).toBe('CORRUPT_EVENT_STREAM');
  expect(await appendOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
  expect(await readOutcome(warm)).toBe('CORRUPT_EVENT_STREAM');
  // The other stream of the namespace is untouched.
  expect((await collect(fresh.read('other'))).length).toBe(2);
}

/** A batch file with a correct checksum around the given body lines. */
function forgedBatch(streamId: string, first: number, lines: string[]): Buffer {
  const body = Buffer.from(`${lines.join('\n')}\n`);
  const sha = createHash('sha256').update(body).digest('hex');
  return Buffer.concat([Buffer.from(`roundtable-fs-batch version=1 stream=${streamId} first=${first} count=${lines.length} bytes=${body.length} sha256=${sha}\n`), body]);
}

describe('damaged data fails closed with CORRUPT_EVENT_STREAM', () => {
  it.each([
    ['by one byte', (size: number) => size - 1],
    ['to the header only', (size: number, header: number) => header],
    ['inside the header', () => 20],
    ['to nothing', () => 0],
  ])('a truncated batch file (%s)', async (_name, newSize) => {
    const { directory, folder, files, warm } = await damagedFixture();
    const path = join(folder, files[1]!);
    const bytes = readFileSync(path);
    truncateSync(path, newSize(bytes.length, bytes.indexOf(0x0a) + 1));
    await expectFailsClosed(directory, warm);
  });

  it('an extended batch file', async () => {
    const { directory, folder, files, warm } = await damagedFixture();
    writeFileSync(join(folder, files[2]!), '{}\n', { flag: 'a' });
    await expectFailsClosed(directory, warm);
  });

  it('any flipped bit in any batch file (property)', async () => {
    const { directory, folder, files } = await damagedFixture();
    const originals = files.map((name) => readFileSync(join(folder, name)));
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: files.length - 1 }), fc.nat(), fc.nat({ max: 7 }), async (fileIndex, position, bit) => {
        const path = join(folder, files[fileIndex]!);
        const original = originals[fileIndex]!;
        const damaged = Buffer.from(original);
        const offset = position % damaged.length;
        damaged[offset] = damaged[offset]! ^ (1 << bit);
        writeFileSync(path, damaged);
        try {
          expect(await readOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
        } finally {
          writeFileSync(path, original);
        }
      }),
      { numRuns: 300 },
    );
    expect(await readOutcome(createFsStorage({ directory }))).toBe('read 8 events');
  });

  it.each([
    ['a stray file', 'notes.txt'],
    ['a hidden file', '.DS_Store'],
    ['a leftover temp name', '0000000000000009.batch.tmp'],
    ['a batch name for revision 0', '0000000000000000.batch'],
  ])('%s in the stream folder', async (_name, fileName) => {
    const { directory, folder } = await damagedFixture();
    writeFileSync(join(folder, fileName), 'not a batch');
    expect(await readOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
    expect(await appendOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
  });

  it('a directory or a FIFO named like a batch file', async () => {
    const { directory, folder, warm } = await damagedFixture();
    mkdirSync(join(folder, '0000000000000009.batch'));
    expect(await readOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
    // An instance that already knows the stream finds it by probing for the next batch.
    expect(await appendOutcome(warm)).toBe('CORRUPT_EVENT_STREAM');
    const second = await damagedFixture();
    expect(spawnSync('mkfifo', [join(second.folder, '0000000000000009.batch')]).status).toBe(0);
    expect(await readOutcome(createFsStorage({ directory: second.directory }))).toBe('CORRUPT_EVENT_STREAM');
    expect(await appendOutcome(second.warm)).toBe('CORRUPT_EVENT_STREAM');
  });

  it('a batch file removed from the middle (a gap)', async () => {
    const { directory, folder, files, warm } = await damagedFixture();
    unlinkSync(join(folder, files[1]!));
    await expectFailsClosed(directory, warm);
  });

  it('a batch file renamed', async () => {
    const { directory, folder, files, warm } = await damagedFixture();
    // 0000000000000003.batch (revisions 3) moved to where revision 4 would start.
    renameSync(join(folder, files[1]!), join(folder, '0000000000000004.batch'));
    await expectFailsClosed(directory, warm);
  });

  it('a batch file swapped for a valid one of the same name from another stream', async () => {
    const { directory, folder, files, warm } = await damagedFixture();
    copyFileSync(join(directory, 'default', 'other', '0000000000000001.batch'), join(folder, files[0]!));
    await expectFailsClosed(directory, warm);
  });

  it('a next batch file that does not continue the stream', async () => {
    const { directory, folder, files, warm } = await damagedFixture();
    copyFileSync(join(folder, files[3]!), join(folder, '0000000000000009.batch'));
    expect(await appendOutcome(warm)).toBe('CORRUPT_EVENT_STREAM');
    expect(await readOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
  });

  it('a checksummed file with an invalid event, a repeated event id or a wrong revision', async () => {
    const event = (revision: number, eventId: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        causationId: null,
        correlationId: 'run',
        envelopeVersion: 1,
        eventId,
        payload: {},
        revision,
        streamId: 'run',
        timestamp: '2025-01-02T03:04:05.678Z',
        type: 'test:event',
        version: 1,
        ...extra,
      });
    const cases = [
      [event(9, 'x', { timestamp: 'yesterday' })],
      [event(9, 'x', { extra: true })],
      [event(9, 'b0-0')],
      [event(9, 'x'), event(10, 'x')],
      [event(10, 'x')],
      ['not json'],
      ['null'],
    ];
    for (const lines of cases) {
      const { directory, folder, warm } = await damagedFixture();
      writeFileSync(join(folder, '0000000000000009.batch'), forgedBatch('run', 9, lines));
      expect(await readOutcome(createFsStorage({ directory })), lines.join('|')).toBe('CORRUPT_EVENT_STREAM');
      expect(await readOutcome(warm), lines.join('|')).toBe('CORRUPT_EVENT_STREAM');
    }
  });

  it('passes UNSUPPORTED_ENVELOPE_VERSION through for an intact event of a newer envelope', async () => {
    const { directory, folder } = await damagedFixture();
    const future = JSON.stringify({ envelopeVersion: 2, eventId: 'x', revision: 9, streamId: 'run' });
    writeFileSync(join(folder, '0000000000000009.batch'), forgedBatch('run', 9, [future]));
    expect(await readOutcome(createFsStorage({ directory }))).toBe('UNSUPPORTED_ENVELOPE_VERSION');
  });

  it('a batch file that is not UTF-8', async () => {
    const { directory, folder } = await damagedFixture();
    const body = Buffer.from([0xff, 0xfe, 0x0a]);
    const sha = createHash('sha256').update(body).digest('hex');
    writeFileSync(join(folder, '0000000000000009.batch'), Buffer.concat([Buffer.from(`roundtable-fs-batch version=1 stream=run first=9 count=1 bytes=3 sha256=${sha}\n`), body]));
    expect(await readOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
  });

  it('a foreign folder in the namespace folder fails streams()', async () => {
    const { directory } = await damagedFixture();
    mkdirSync(join(directory, 'default', 'Run'));
    let caught: unknown;
    try {
      await collect(createFsStorage({ directory }).streams());
    } catch (error) {
      caught = error;
    }
    expect(isStorageError(caught, 'CORRUPT_EVENT_STREAM')).toBe(true);
  });
});

// The choices the README documents under "What an open instance notices": an instance lists a
// stream folder once, then probes only for the next batch file, so an append's cost stays flat.
describe('damage after an instance has listed the stream (documented behaviour)', () => {
  it('a foreign file dropped in later: the open instance still reads exactly what was written; a fresh one refuses', async () => {
    const { directory, folder, warm } = await damagedFixture();
    const before = await collect(warm.read('run'));
    writeFileSync(join(folder, 'notes.txt'), 'dropped in later');
    expect((await collect(warm.read('run'))).map((event) => event.eventId)).toEqual(before.map((event) => event.eventId));
    expect(await appendOutcome(warm)).toBe('appended at 9');
    expect(await readOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
    unlinkSync(join(folder, 'notes.txt'));
    expect(await readOutcome(createFsStorage({ directory }))).toBe('read 9 events');
  });

  it('a middle batch deleted later: the open instance fails reads of the gap but appends on top; a fresh one refuses both; restoring the file heals it', async () => {
    const { directory, folder, files, warm } = await damagedFixture();
    // An instance gathers the stream's event ids (for DUPLICATE_EVENT_ID) by reading it: this one has.
    expect((await collect(warm.read('run'))).length).toBe(8);
    const path = join(folder, files[1]!);
    const saved = readFileSync(path);
    unlinkSync(path);
    expect(await readOutcome(warm)).toBe('CORRUPT_EVENT_STREAM');
    expect((await collect(warm.read('run', { after: 5 }))).map((event) => event.revision)).toEqual([6, 7, 8]);
    expect(await appendOutcome(warm)).toBe('appended at 9');
    expect(await readOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
    expect(await appendOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
    writeFileSync(path, saved, { mode: 0o600 });
    expect(await readOutcome(createFsStorage({ directory }))).toBe('read 9 events');
  });

  it('the newest batch deleted later: the open instance fails closed on it, and so does a fresh one (the head marker)', async () => {
    const { directory, folder, files, warm } = await damagedFixture();
    unlinkSync(join(folder, files.at(-1)!));
    expect(await readOutcome(warm)).toBe('CORRUPT_EVENT_STREAM');
    expect(await readOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
    expect(await appendOutcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
  });
});
