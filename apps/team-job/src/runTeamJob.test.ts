import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTeamJob } from './runTeamJob.js';

const temps = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('roundtable-team-job-'));

describe('the team-job example', () => {
  it('runs two agents, integrates both commits, passes the one-reviewer panel, replays, and cleans up', async () => {
    const before = await temps();
    const report = await runTeamJob();
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.result.agents.map((agent) => agent.name)).toEqual(['coder', 'tester']);
    expect(report.result.integration!.merged).toEqual(['coder', 'tester']);
    expect(report.integratedLog.filter((line) => line.includes('Roundtable: Merge agent'))).toHaveLength(2);
    expect(report.user.status).toBe('');
    expect(await temps()).toEqual(before);
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
