import { writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStorage } from '@roundtable/storage-fs';
import { team } from '@roundtable/team';
import { scratchRepository } from '@roundtable/test-utils';
import type { ScratchRepository } from '@roundtable/test-utils';
import { assertBuilt, roundtable } from './__fixtures__/helpers.js';

// A callable team job (`@roundtable/team`, graph kind 'team-job') is read by the same commands
// as a conversation: the CLI knows its graph type, so status and verify fold it strictly.

let scratch: ScratchRepository;
let store: string;

beforeAll(async () => {
  assertBuilt();
  scratch = await scratchRepository({ 'README.md': '# scratch\n' });
  const repository = scratch.dir;
  store = `${scratch.dir}-record`;
  const job = team({
    task: 'Add two files.',
    repository,
    agents: [
      { name: 'coder', role: 'developer', brief: 'Add a.txt.', run: ({ workspace }) => (writeFileSync(join(workspace, 'a.txt'), 'a\n'), { status: 'pass', summary: 'Added a.txt.' }) },
      { name: 'tester', role: 'tester', brief: 'Add b.txt.', run: ({ workspace }) => (writeFileSync(join(workspace, 'b.txt'), 'b\n'), { status: 'pass', summary: 'Added b.txt.' }) },
    ],
    review: { kind: 'panel', reviewers: [{ name: 'lead', run: () => ({ status: 'pass', summary: 'Looks right.' }) }] },
  });
  const storage = createFsStorage({ directory: store });
  try {
    const result = await job.run({ storage, runId: 'job-1' });
    expect(result.status).toBe('complete');
  } finally {
    await storage.close();
  }
}, 120_000);

afterAll(async () => {
  await scratch.remove();
  await rm(store, { recursive: true, force: true });
});

describe('a team job record', () => {
  it('is listed as complete, verifies, and shows one attempt per agent, integration and reviewer', async () => {
    const runs = await roundtable(['runs', '--store', `fs:${store}`, '-o', 'json']);
    expect(runs.code, runs.stderr).toBe(0);
    const listed = (JSON.parse(runs.stdout) as { runs: { runId: string; kind: string; status: { kind: string } }[] }).runs;
    expect(listed).toEqual([expect.objectContaining({ runId: 'job-1', kind: 'team-job', status: expect.objectContaining({ kind: 'complete' }) })]);

    const verify = await roundtable(['verify', 'job-1', '--store', `fs:${store}`]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);

    const show = await roundtable(['show', 'job-1', '--store', `fs:${store}`, '-o', 'json']);
    expect(show.code, show.stderr).toBe(0);
    const report = JSON.parse(show.stdout) as { attempts: { nodeId: string }[] };
    expect(report.attempts.map((attempt) => attempt.nodeId)).toEqual(['agent/coder', 'agent/tester', 'integration', 'review/lead']);

    // In text, the job's outcome is an indented document, not one long JSON line.
    const text = await roundtable(['show', 'job-1', '--store', `fs:${store}`]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/\n {2}output:\n {4}\{\n {6}"\w+": /);
    expect(Math.max(...text.stdout.split('\n').map((line) => line.length))).toBeLessThan(240);
  });
});
