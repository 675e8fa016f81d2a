import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { inspectCommands } from './inspectCommands.js';
import { RUN_ID, runDemo } from './runDemo.js';

/**
 * Runs `work` with a temp folder of its own as the OS temp folder (TMPDIR), so what another
 * process makes or removes in the shared one meanwhile (a second CI run) is not in what the
 * test checks was cleaned up; readable by all, as embedded PostgreSQL's data folder must be for
 * its `postgres` user. Returns what `work` left in it.
 */
async function inOwnTemp<T>(work: () => Promise<T>): Promise<{ result: T; left: string[] }> {
  const own = await mkdtemp(join(tmpdir(), 'demo-temp-'));
  await chmod(own, 0o755);
  const tmp = process.env.TMPDIR;
  process.env.TMPDIR = own;
  try {
    const result = await work();
    return { result, left: await readdir(own) };
  } finally {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
    await rm(own, { recursive: true, force: true });
  }
}

describe('the team-conversation demo', () => {
  it.each(['memory', 'fs', 'sqlite', 'postgres'] as const)('succeeds on %s storage and leaves no temporary files', async (storage) => {
    const { result: report, left } = await inOwnTemp(() => runDemo({ storage }));
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.dispatchOrder).toEqual(['writer', 'reviewer', 'writer']);
    expect(report.messages.map((message) => message.id)).toEqual(['team/writer/1/0', 'team/reviewer/1/0']);
    expect(report.roomFiles[0]!.text).toContain('reviewer [team/reviewer/1/0] @writer: ');
    expect(left).toEqual([]);
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

  it('names the roundtable commands that inspect the kept record, for the durable stores only', async () => {
    const keep = await mkdtemp(join(tmpdir(), 'demo-keep-'));
    try {
      for (const storage of ['fs', 'sqlite'] as const) {
        const report = await runDemo({ storage, keep });
        const commands = inspectCommands(storage, report.keptIn!, RUN_ID);
        const store = storage === 'fs' ? `fs:${join(keep, 'record')}` : `sqlite:${join(keep, 'record.sqlite')}`;
        expect(commands).toContain(`pnpm roundtable show ${RUN_ID} --store ${store}`);
        expect(commands.every((command) => command.startsWith('pnpm roundtable ') && command.endsWith(`--store ${store}`))).toBe(true);
        expect(existsSync(store.replace(/^(fs|sqlite):/, ''))).toBe(true);
      }
      expect(inspectCommands('memory', keep, RUN_ID)).toEqual([]);
      expect(inspectCommands('fs', "/tmp/it's here", RUN_ID)[0]).toBe("pnpm roundtable runs --store 'fs:/tmp/it'\\''s here/record'");
    } finally {
      await rm(keep, { recursive: true, force: true });
    }
  });
});
