import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoundtableError } from '@roundtable/core';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import { createFsStorage } from '@roundtable/storage-fs';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { createSqliteStorage } from '@roundtable/storage-sqlite';
import { FAULT_RUN_ID, MEMBERS, faultGraph, faultMember } from './faultTeam.js';
import { faultCounts, reportFaults } from './faultReport.js';

// A full disk, made real with a tiny tmpfs: the run stops with an error and nothing torn is
// left behind; once space is freed, a fresh executor finishes with the uninterrupted output.
// Mounting needs root (CI runs as root); elsewhere the test says why it is skipped.

const TURNS = 40;
const mountPoint = mkdtempSync(join(tmpdir(), 'roundtable-tinyfs-'));
const mounted = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('[faults] disk-full: cannot mount a tmpfs here (it needs root); these cases are skipped.');
    return false;
  }
})();
afterAll(async () => {
  if (mounted) execFileSync('umount', [mountPoint]);
  await rm(mountPoint, { recursive: true, force: true });
  reportFaults('disk full');
});

const nodes = Object.fromEntries(MEMBERS.map((id) => [id, { run: faultMember(id, TURNS), retrySafe: true }]));

async function runToEnd(storage: RunStorage) {
  const executor = await createGraphExecutor({ runId: FAULT_RUN_ID, graph: faultGraph(TURNS), storage, nodes });
  let result = await executor.run();
  while (result.kind === 'waiting') result = await executor.resume(result.positions[0]!);
  return result;
}

/** Fills the disk, leaving `spare` bytes, with a file that can be removed later. */
async function fill(spare: number): Promise<string> {
  const filler = join(mountPoint, 'filler');
  const size = Number(execFileSync('df', ['--output=avail', '-B1', mountPoint]).toString().trim().split('\n').at(-1)) - spare;
  await writeFile(filler, Buffer.alloc(Math.max(0, size)));
  return filler;
}

describe.each([
  ['fs', (dir: string) => createFsStorage({ directory: join(dir, 'record') })],
  ['sqlite', (dir: string) => createSqliteStorage({ filename: join(dir, 'record.sqlite') })],
] as const)('a full disk under %s', (kind, open) => {
  it.runIf(mounted)('stops with an error, tears nothing, and recovers once space is freed', async () => {
    const reference = await runToEnd(createMemoryStorage());
    const dir = join(mountPoint, kind);
    await mkdir(dir);
    const storage = open(dir);
    await storage.head(FAULT_RUN_ID);
    const filler = await fill(48 * 1024);
    const error = await runToEnd(storage).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error, 'the run should hit the full disk').not.toBeNull();
    expect(isRoundtableError(error, 'STORAGE_IO_ERROR'), String(error)).toBe(true);
    faultCounts.diskFullRuns++;
    await storage.close().catch(() => undefined);

    await unlink(filler);
    const reopened = open(dir);
    // Whatever was committed reads back whole: no torn batch fails the fold.
    expect(await runToEnd(reopened)).toEqual(reference);
    await reopened.close();
    await rm(dir, { recursive: true, force: true });
    faultCounts.recoveredRuns++;
  });
});
