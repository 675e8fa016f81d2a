import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What any team made from the starter keeps true while you change it: src/team.ts runs to
// completion (it exits 1 when the run does not complete) and writes its record and rooms.
const TSX = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const TEAM = fileURLToPath(new URL('./team.ts', import.meta.url));

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'roundtable-team-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('the team', () => {
  it('runs from its .ts file to completion and writes its record and room files', async () => {
    const { stdout } = await promisify(execFile)(TSX, [TEAM], { cwd, encoding: 'utf8' });
    expect(stdout).toMatch(/Run \S+ completed\. Final answers:/);
    expect(await readdir(join(cwd, '.roundtable'))).toEqual(['record', 'rooms']);
  });
});
