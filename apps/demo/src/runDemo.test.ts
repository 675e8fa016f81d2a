import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDemo } from './runDemo.js';

async function demoTemps(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('roundtable-demo-'));
}

describe('the team-conversation demo', () => {
  it.each(['memory', 'fs', 'sqlite', 'postgres'] as const)('succeeds on %s storage and leaves no temporary files', async (storage) => {
    const before = await demoTemps();
    const report = await runDemo({ storage });
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.dispatchOrder).toEqual(['writer', 'reviewer', 'writer']);
    expect(report.messages.map((message) => message.id)).toEqual(['team/writer/1/0', 'team/reviewer/1/0']);
    expect(report.roomFiles[0]!.text).toContain('reviewer [team/reviewer/1/0] @writer: ');
    expect(await demoTemps()).toEqual(before);
    expect(report.postgres === null).toBe(storage !== 'postgres');
  });

  it('keeps the record and room files with --keep', async () => {
    const keep = await mkdtemp(join(tmpdir(), 'demo-keep-'));
    try {
      const report = await runDemo({ storage: 'sqlite', keep });
      expect(report.ok).toBe(true);
      const kept = await readdir(keep);
      expect(kept).toEqual(expect.arrayContaining(['record.sqlite', 'rooms']));
      // The review room's file and the run's room index beside it.
      expect((await readdir(join(keep, 'rooms'))).map((name) => name.replace(/-[0-9a-f]{64}/, '')).sort()).toEqual(['roundtable-room.txt', 'roundtable-run.json']);
    } finally {
      await rm(keep, { recursive: true, force: true });
    }
  });
});
