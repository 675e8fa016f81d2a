import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isStorageError } from '@roundtable/storage';
import type { RunStorage, StoredEvent } from '@roundtable/storage';
import { createFsStorage } from './index.js';
import { collect, folderLayout, listFiles, newEvent, newEvents, removeTempDirectories, storageError, tempDirectory } from './__fixtures__/support.js';

afterAll(removeTempDirectories);

const BATCH_SIZES = [2, 1, 3, 2, 1, 1, 2, 3, 1, 2];
const HEAD = BATCH_SIZES.reduce((sum, size) => sum + size, 0);

/** Appends the ten batches of BATCH_SIZES to `run` (and two to `other`); the same bytes every time. */
async function writeStream(directory: string, segmentBatches: number): Promise<void> {
  const storage = createFsStorage({ directory, segmentBatches });
  let head = 0;
  for (const [index, size] of BATCH_SIZES.entries()) head = await storage.append('run', head, newEvents(`b${index}`, size));
  await storage.append('other', 0, newEvents('o', 2));
  await storage.close();
}

function ids(events: readonly StoredEvent[]): string[] {
  return events.map((event) => `${event.revision}:${event.eventId}`);
}

const EXPECTED = BATCH_SIZES.flatMap((size, batch) => Array.from({ length: size }, (_, index) => `b${batch}-${index}`)).map((id, index) => `${index + 1}:${id}`);

async function outcome(storage: RunStorage): Promise<string> {
  try {
    const events = await collect(storage.read('run'));
    expect(await storage.head('run')).toBe(events.length);
    return ids(events).join(',') === EXPECTED.slice(0, events.length).join(',') ? `read ${events.length} events` : 'read different events';
  } catch (error) {
    if (!isStorageError(error)) throw error;
    return error.code;
  }
}

/** A batch file as the adapter has always written it (format version 1), with a correct checksum. */
function batchFileBytes(streamId: string, first: number, eventIds: readonly string[]): Buffer {
  const lines = eventIds.map((eventId, index) =>
    JSON.stringify({
      causationId: null,
      correlationId: 'run',
      envelopeVersion: 1,
      eventId,
      payload: { eventId },
      revision: first + index,
      streamId,
      timestamp: '2025-01-02T03:04:05.678Z',
      type: 'test:event',
      version: 1,
    }),
  );
  const body = Buffer.from(`${lines.join('\n')}\n`);
  const sha = createHash('sha256').update(body).digest('hex');
  return Buffer.concat([Buffer.from(`roundtable-fs-batch version=1 stream=${streamId} first=${first} count=${lines.length} bytes=${body.length} sha256=${sha}\n`), body]);
}

describe('segment files', () => {
  it('pack the oldest batch files once more than segmentBatches wait, and every read returns the same events', async () => {
    const directory = tempDirectory();
    await writeStream(directory, 3);
    const folder = join(directory, 'default', 'run');
    const layout = folderLayout(folder);
    expect(layout).toMatchObject({ segments: 3, leftovers: 0, marker: true, other: [] });
    expect(layout.batchFiles + layout.packedBatches).toBe(BATCH_SIZES.length);
    // Never more than segmentBatches + 1 batch files wait, and the newest is never packed.
    expect(layout.batchFiles).toBeLessThanOrEqual(4);
    expect(listFiles(folder)).toContain(`${String(HEAD - 1).padStart(16, '0')}.batch`);

    const storage = createFsStorage({ directory });
    expect(await storage.head('run')).toBe(HEAD);
    const events = await collect(storage.read('run'));
    expect(ids(events)).toEqual(EXPECTED);
    expect(events[0]).toEqual({ ...newEvent('b0-0'), envelopeVersion: 1, streamId: 'run', revision: 1 });
    for (let after = 0; after <= HEAD; after++) expect(ids(await collect(storage.read('run', { after })))).toEqual(EXPECTED.slice(after));
    // The same record written without packing reads back identically, event for event.
    const plain = tempDirectory();
    await writeStream(plain, 1_000);
    expect(folderLayout(join(plain, 'default', 'run')).segments).toBe(0);
    expect(await collect(createFsStorage({ directory: plain }).read('run'))).toEqual(events);
  });

  it('keep every port rule across packs: retries, conflicts, duplicate ids, appends from several instances', async () => {
    const directory = tempDirectory();
    const left = createFsStorage({ directory, segmentBatches: 2 });
    const right = createFsStorage({ directory, segmentBatches: 2 });
    let head = 0;
    for (let round = 0; round < 12; round++) {
      const writer = round % 3 === 0 ? right : left;
      const batch = newEvents(`r${round}`, 1 + (round % 3));
      head = await writer.append('run', head, batch);
      // A byte-identical retry returns the committed head, after the batch was packed or not.
      expect(await (round % 2 === 0 ? left : right).append('run', head - batch.length, batch)).toBe(head);
    }
    expect(folderLayout(join(directory, 'default', 'run')).segments).toBeGreaterThan(1);
    const conflict = await storageError(() => left.append('run', 1, newEvents('late', 1)), 'REVISION_CONFLICT');
    expect(conflict.details).toEqual({ expectedRevision: 1, actualRevision: head });
    // r0-0 sits in the first segment: still a duplicate for a fresh instance and for both old ones.
    for (const storage of [createFsStorage({ directory }), left, right]) await storageError(() => storage.append('run', head, [newEvent('r0-0')]), 'DUPLICATE_EVENT_ID');
    const events = await collect(createFsStorage({ directory }).read('run'));
    expect(events.map((event) => event.revision)).toEqual(Array.from({ length: head }, (_, index) => index + 1));
    expect(await collect(left.read('run'))).toEqual(events);
    expect(await collect(right.read('run', { after: 3 }))).toEqual(events.slice(3));
  });

  it('pack exactly segmentBatches at a time whichever instance packed last, found by listing, probing or packing', async () => {
    // Each instance counts the batch files waiting as it goes (no walk over the stream per
    // append): the count must follow segments other instances packed, and a fresh listing.
    const directory = tempDirectory();
    const folder = join(directory, 'default', 'run');
    const writers = [createFsStorage({ directory, segmentBatches: 3 }), createFsStorage({ directory, segmentBatches: 3 })];
    let head = 0;
    for (let round = 0; round < 40; round++) {
      // Runs of one to three appends by one writer; every seventh append by a fresh instance.
      const writer = round % 7 === 6 ? createFsStorage({ directory, segmentBatches: 3 }) : writers[Math.floor(round / (1 + (round % 3))) % 2]!;
      head = await writer.append('run', head, newEvents(`w${round}`, 1 + (round % 2)));
      // The next call on the stream waits for the pack queued behind the append.
      expect(await writer.head('run')).toBe(head);
      const layout = folderLayout(folder);
      expect(layout.batchFiles).toBeLessThanOrEqual(4);
      expect(layout.batchFiles + layout.packedBatches).toBe(round + 1);
      expect(layout.packedBatches).toBe(layout.segments * 3);
    }
    expect(folderLayout(folder).segments).toBe(13);
    expect((await collect(createFsStorage({ directory }).read('run'))).length).toBe(head);
  });

  it('rejects a bad segmentBatches with INVALID_STORAGE_OPTIONS', () => {
    const directory = tempDirectory();
    for (const segmentBatches of [0, -1, 1.5, Number.NaN, 2_000_000, '8' as unknown as number]) {
      let caught: unknown;
      try {
        createFsStorage({ directory, segmentBatches });
      } catch (error) {
        caught = error;
      }
      expect(isStorageError(caught, 'INVALID_STORAGE_OPTIONS'), String(segmentBatches)).toBe(true);
    }
  });
});

// What a writer killed while packing leaves behind, step by step (the crash test kills packing
// writers at random moments too): the same stream written twice, once never packed and once
// packed, gives the batch files and the segments a real pack works with, byte for byte.
describe('a pack cut short at any step loses and doubles nothing', () => {
  async function packedAndPlain(): Promise<{ plainFolder: string; segments: string[]; packedFolder: string }> {
    const plain = tempDirectory();
    await writeStream(plain, 1_000);
    const packed = tempDirectory();
    await writeStream(packed, 3);
    const packedFolder = join(packed, 'default', 'run');
    return { plainFolder: join(plain, 'default', 'run'), segments: readdirSync(packedFolder).filter((name) => name.endsWith('.segment')), packedFolder };
  }

  async function expectWholeAndWritable(directory: string): Promise<void> {
    expect(await outcome(createFsStorage({ directory }))).toBe(`read ${HEAD} events`);
    const storage = createFsStorage({ directory, segmentBatches: 3 });
    let head = HEAD;
    for (let round = 0; round < 5; round++) head = await storage.append('run', head, newEvents(`after-${round}`, 1));
    // Packed batch files are removed in the background; close() waits for that.
    await storage.close();
    const events = await collect(createFsStorage({ directory }).read('run'));
    expect(ids(events.slice(0, HEAD))).toEqual(EXPECTED);
    expect(events.slice(HEAD).map((event) => event.eventId)).toEqual(['after-0-0', 'after-1-0', 'after-2-0', 'after-3-0', 'after-4-0']);
    // The next pack removed what the cut-short one left.
    expect(folderLayout(join(directory, 'default', 'run')).leftovers).toBe(0);
  }

  it('killed before the segment was linked: a temp file only', async () => {
    const { plainFolder, segments, packedFolder } = await packedAndPlain();
    const directory = join(plainFolder, '..', '..');
    copyFileSync(join(packedFolder, segments[0]!), join(directory, 'default', '.tmp', '00000000-1-0123456789abcdef.tmp'));
    await expectWholeAndWritable(directory);
  });

  it('killed after the segment was linked, before any packed batch file was removed', async () => {
    const { plainFolder, segments, packedFolder } = await packedAndPlain();
    for (const name of segments) copyFileSync(join(packedFolder, name), join(plainFolder, name));
    expect(folderLayout(plainFolder).leftovers).toBeGreaterThan(0);
    await expectWholeAndWritable(join(plainFolder, '..', '..'));
  });

  it('killed half-way through removing the packed batch files', async () => {
    const { plainFolder, segments, packedFolder } = await packedAndPlain();
    copyFileSync(join(packedFolder, segments[0]!), join(plainFolder, segments[0]!));
    const batchFiles = listFiles(plainFolder).filter((name) => name.endsWith('.batch'));
    unlinkSync(join(plainFolder, batchFiles[0]!));
    unlinkSync(join(plainFolder, batchFiles[2]!));
    await expectWholeAndWritable(join(plainFolder, '..', '..'));
  });

  it('a batch file linked over a packed revision (a writer whose head was stale) is never read', async () => {
    const directory = tempDirectory();
    await writeStream(directory, 3);
    const folder = join(directory, 'default', 'run');
    const warm = createFsStorage({ directory });
    expect(await warm.head('run')).toBe(HEAD);
    // Revision 3 is packed and its batch file gone; a stale writer links a different batch there.
    writeFileSync(join(folder, '0000000000000003.batch'), batchFileBytes('run', 3, ['stale-0', 'stale-1']), { mode: 0o600 });
    expect(await outcome(createFsStorage({ directory }))).toBe(`read ${HEAD} events`);
    expect(await outcome(warm)).toBe(`read ${HEAD} events`);
    expect(await warm.append('run', HEAD, [newEvent('stale-0')])).toBe(HEAD + 1);
  });
});

describe('records written before segments and the head marker', () => {
  it('read as they always did, take appends, and are packed from then on', async () => {
    const directory = tempDirectory();
    const folder = join(directory, 'default', 'run');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    // The layout of storage-fs 0.1.0: one batch file per append, nothing else in the folder.
    let first = 1;
    for (const [index, size] of BATCH_SIZES.entries()) {
      writeFileSync(join(folder, `${String(first).padStart(16, '0')}.batch`), batchFileBytes('run', first, Array.from({ length: size }, (_, i) => `b${index}-${i}`)), { mode: 0o600 });
      first += size;
    }
    const storage = createFsStorage({ directory, segmentBatches: 4 });
    expect(await outcome(storage)).toBe(`read ${HEAD} events`);
    expect(await storage.append('run', HEAD, newEvents('new', 2))).toBe(HEAD + 2);
    await storageError(() => storage.append('run', HEAD + 2, [newEvent('b0-0')]), 'DUPLICATE_EVENT_ID');
    await storage.close();
    // Eleven batch files: packed four at a time, the three newest left.
    const layout = folderLayout(folder);
    expect(layout).toMatchObject({ segments: 2, packedBatches: 8, batchFiles: 3, marker: true, leftovers: 0, other: [] });
    const events = await collect(createFsStorage({ directory }).read('run'));
    expect(ids(events.slice(0, HEAD))).toEqual(EXPECTED);
    expect(events.slice(HEAD).map((event) => event.eventId)).toEqual(['new-0', 'new-1']);
    expect(events[0]).toEqual({ ...newEvent('b0-0', { eventId: 'b0-0' }), envelopeVersion: 1, streamId: 'run', revision: 1 });
  });
});

describe('the head marker', () => {
  async function fixture(): Promise<{ directory: string; folder: string; batchFiles: string[] }> {
    const directory = tempDirectory();
    await writeStream(directory, 1_000);
    const folder = join(directory, 'default', 'run');
    return { directory, folder, batchFiles: listFiles(folder).filter((name) => name.endsWith('.batch')) };
  }

  it('is a copy of the newest batch', async () => {
    const { folder, batchFiles } = await fixture();
    expect(readFileSync(join(folder, 'head'))).toEqual(readFileSync(join(folder, batchFiles.at(-1)!)));
  });

  it('is the newest batch file itself under a second name, so it costs no write and no fsync of its own', async () => {
    const { folder, batchFiles } = await fixture();
    const marker = statSync(join(folder, 'head'));
    const newest = statSync(join(folder, batchFiles.at(-1)!));
    // One inode, linked as the batch file and as the marker: its bytes were fsynced before the batch was linked.
    expect(marker.ino).toBe(newest.ino);
    expect(marker.dev).toBe(newest.dev);
    expect(newest.nlink).toBe(2);
    for (const name of batchFiles.slice(0, -1)) expect(statSync(join(folder, name)).nlink).toBe(1);
  });

  it('makes the newest batch files deleted fail closed, packed or not', async () => {
    const { directory, folder, batchFiles } = await fixture();
    for (const name of batchFiles.slice(-2)) unlinkSync(join(folder, name));
    expect(await outcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
    await storageError(() => createFsStorage({ directory }).append('run', HEAD - 3, [newEvent('x')]), 'CORRUPT_EVENT_STREAM');

    const packed = tempDirectory();
    await writeStream(packed, 3);
    const packedFolder = join(packed, 'default', 'run');
    unlinkSync(join(packedFolder, listFiles(packedFolder).filter((name) => name.endsWith('.batch')).at(-1)!));
    expect(await outcome(createFsStorage({ directory: packed }))).toBe('CORRUPT_EVENT_STREAM');
  });

  it('removed with the newest batch files, leaves a shorter stream that reads whole (the documented limit)', async () => {
    const { directory, folder, batchFiles } = await fixture();
    unlinkSync(join(folder, 'head'));
    expect(await outcome(createFsStorage({ directory }))).toBe(`read ${HEAD} events`);
    unlinkSync(join(folder, batchFiles.at(-1)!));
    expect(await outcome(createFsStorage({ directory }))).toBe(`read ${HEAD - 2} events`);
  });

  it('an older batch as the marker (a racing writer renamed its batch last) is fine; a damaged or foreign one fails closed', async () => {
    const { directory, folder, batchFiles } = await fixture();
    const original = readFileSync(join(folder, 'head'));
    const put = (bytes: Buffer) => {
      unlinkSync(join(folder, 'head'));
      writeFileSync(join(folder, 'head'), bytes, { mode: 0o600 });
    };
    put(readFileSync(join(folder, batchFiles[3]!)));
    expect(await outcome(createFsStorage({ directory }))).toBe(`read ${HEAD} events`);
    const flipped = Buffer.from(original);
    flipped[flipped.length - 5] = flipped[flipped.length - 5]! ^ 1;
    const headerFlipped = Buffer.from(original.toString('latin1').replace(`first=${HEAD - 1}`, `first=${HEAD}`).replace('count=2', 'count=1'), 'latin1');
    const cases = [
      flipped,
      original.subarray(0, original.length - 1),
      Buffer.concat([original, Buffer.from('x')]),
      headerFlipped,
      readFileSync(join(directory, 'default', 'other', '0000000000000001.batch')),
      batchFileBytes('run', HEAD - 1, ['forged-0', 'forged-1']),
      Buffer.from('not a batch'),
    ];
    for (const [index, bytes] of cases.entries()) {
      put(bytes);
      expect(await outcome(createFsStorage({ directory })), `case ${index}`).toBe('CORRUPT_EVENT_STREAM');
    }
    unlinkSync(join(folder, 'head'));
    mkdirSync(join(folder, 'head'));
    expect(await outcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
  });
});

describe('damaged segment files fail closed with CORRUPT_EVENT_STREAM', () => {
  async function fixture(): Promise<{ directory: string; folder: string; segments: string[]; warm: RunStorage }> {
    const directory = tempDirectory();
    await writeStream(directory, 3);
    const folder = join(directory, 'default', 'run');
    const warm = createFsStorage({ directory });
    expect(await warm.head('run')).toBe(HEAD);
    return { directory, folder, segments: listFiles(folder).filter((name) => name.endsWith('.segment')), warm };
  }

  it('any flipped byte, a cut or an extension, for a fresh instance and for one that listed it before', async () => {
    const { directory, folder, segments, warm } = await fixture();
    const path = join(folder, segments[1]!);
    const original = readFileSync(path);
    const damaged: Buffer[] = [original.subarray(0, original.length - 1), original.subarray(0, 40), Buffer.concat([original, Buffer.from('\n')])];
    for (let offset = 0; offset < original.length; offset += 7) {
      const copy = Buffer.from(original);
      copy[offset] = copy[offset]! ^ 0x20;
      damaged.push(copy);
    }
    for (const bytes of damaged) {
      writeFileSync(path, bytes);
      expect(await outcome(createFsStorage({ directory }))).toBe('CORRUPT_EVENT_STREAM');
      expect(await outcome(warm)).toBe('CORRUPT_EVENT_STREAM');
    }
    writeFileSync(path, original);
    expect(await outcome(createFsStorage({ directory }))).toBe(`read ${HEAD} events`);
  });

  it('a segment removed, renamed, swapped with another stream’s, or a foreign file named like one', async () => {
    const damages: [string, (folder: string, segments: string[], directory: string) => void][] = [
      ['removed', (folder, segments) => unlinkSync(join(folder, segments[0]!))],
      ['renamed', (folder, segments) => renameSync(join(folder, segments[1]!), join(folder, segments[1]!.replace(/\d{16}/, (digits) => String(Number(digits) + 1).padStart(16, '0'))))],
      ['a foreign file', (folder) => writeFileSync(join(folder, '0000000000000099.segment'), 'not a segment')],
      ['another stream’s', (folder, segments, directory) => {
        const other = tempDirectory();
        cpSync(directory, other, { recursive: true });
        const otherFolder = join(other, 'default', 'run');
        const bytes = readFileSync(join(otherFolder, segments[0]!)).toString('latin1').replace('stream=run ', 'stream=rum ');
        writeFileSync(join(folder, segments[0]!), Buffer.from(bytes, 'latin1'));
      }],
    ];
    for (const [name, damage] of damages) {
      const { directory, folder, segments } = await fixture();
      damage(folder, segments, directory);
      expect(await outcome(createFsStorage({ directory })), name).toBe('CORRUPT_EVENT_STREAM');
    }
  });
});
