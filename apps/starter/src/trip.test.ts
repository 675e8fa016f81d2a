import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The starter's own story (pnpm new-team leaves this file out of a copy: a team of yours would
// fail it): the .ts file straight through tsx in a real child process.
const TSX = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const TEAM = fileURLToPath(new URL('./team.ts', import.meta.url));

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'roundtable-starter-trip-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('the starter trip team', () => {
  it('runs from its .ts file, pauses for a person, completes and projects its room', async () => {
    const { stdout } = await promisify(execFile)(TSX, [TEAM], { cwd, encoding: 'utf8' });
    expect(stdout).toContain('Paused at team/writer/1: Approve the trip?');
    expect(stdout).toMatch(/Run trip-\S+ completed\. Final answers:/);
    expect(stdout).toContain('writer: Plan (approved: "yes"): Low tide is at 11:40');
    expect(stdout).toContain('researcher [team/researcher/1/0] @planner: Low tide');
    expect(await readdir(join(cwd, '.roundtable'))).toEqual(['record', 'rooms']);
  });
});
