import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTeamJob } from './runTeamJob.js';

describe('the team-job example', () => {
  it('runs two agents, integrates both commits, passes the one-reviewer panel, replays, and cleans up', async () => {
    // A temp folder of this test's own, so another process's temp files (a second CI run, any
    // test beside this one) cannot come or go in what it checks was cleaned up.
    const own = await mkdtemp(join(tmpdir(), 'team-job-temp-'));
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = own;
    try {
      const report = await runTeamJob();
      expect(report.checks.filter((check) => !check.ok)).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.result.agents.map((agent) => agent.name)).toEqual(['coder', 'tester']);
      expect(report.result.integration!.merged).toEqual(['coder', 'tester']);
      expect(report.integratedLog.filter((line) => line.includes('Roundtable: Merge agent'))).toHaveLength(2);
      expect(report.user.status).toBe('');
      expect(await readdir(own)).toEqual([]);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
      await rm(own, { recursive: true, force: true });
    }
  });

  it('keeps the repository and record with --keep', async () => {
    const keep = await mkdtemp(join(tmpdir(), 'team-job-keep-'));
    try {
      const report = await runTeamJob({ keep });
      expect(report.ok).toBe(true);
      expect((await readdir(keep)).sort()).toEqual(['record', 'repository']);
    } finally {
      await rm(keep, { recursive: true, force: true });
    }
  });
});
