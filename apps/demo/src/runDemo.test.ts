import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { inspectCommands } from './inspectCommands.js';
import { createFsStorage } from '@roundtable/storage-fs';
import { forkRun } from '@roundtable/runtime';
import { RUN_ID, runDemo } from './runDemo.js';
import { REJECT_REPLY, REVIEW_REPLY } from './teamConversation.js';

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

  it('the README\'s fork walk-through: a rejecting reviewer, a fork before the review, the fork run with the approving one; only the fork\'s turns run', async () => {
    const keep = await mkdtemp(join(tmpdir(), 'demo-fork-'));
    try {
      const rejected = await runDemo({ storage: 'fs', keep, reviewer: 'reject' });
      expect(rejected.ok).toBe(true);
      expect(rejected.finalAnswers.find((answer) => answer.name === 'writer')?.summary).toContain(REJECT_REPLY);
      // Revision 5 is the reviewer's dispatch, the revision before the review (its attempt starts at 6).
      const storage = createFsStorage({ directory: join(keep, 'record') });
      try {
        const events: { type: string; revision: number }[] = [];
        for await (const event of storage.read(RUN_ID)) events.push(event);
        expect(events[5]).toMatchObject({ revision: 6, type: 'graph:node-attempt-started', payload: { nodeId: 'reviewer' } });
        await forkRun({ storage, from: RUN_ID, at: 5, to: 'release-team-approved' });
      } finally {
        await storage.close();
      }
      const approved = await runDemo({ storage: 'fs', keep, runId: 'release-team-approved' });
      expect(approved.checks.filter((check) => !check.ok)).toEqual([]);
      expect(approved.runId).toBe('release-team-approved');
      expect(approved.dispatchOrder).toEqual(['writer', 'reviewer', 'writer']);
      expect(approved.finalAnswers.find((answer) => answer.name === 'writer')?.summary).toContain(REVIEW_REPLY);
      // The writer's first turn is the parent's: the fork's messages begin with it, then the approving review.
      expect(approved.messages.map((message) => message.text)).toEqual([rejected.messages[0]!.text, REVIEW_REPLY]);
      expect(approved.projectionRevision).toBeGreaterThan(5);
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
