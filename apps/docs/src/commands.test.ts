import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmePaths, readReadmeBlocks } from './readmeBlocks.js';
import { copyRepository, isShellBlock, runShellBlock, userEnvironment } from './runCommands.js';
import type { CommandOutcome } from './runCommands.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
// turbo's local cache: the checkout's .turbo/cache, or the main worktree's when this is a git
// worktree (turbo shares one cache among a repository's worktrees).
const gitCommonDir = spawnSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: root, encoding: 'utf8' }).stdout.trim();
const turboCache = join(gitCommonDir === '' ? root : dirname(gitCommonDir), '.turbo', 'cache');
// Generous: one command may wait for a build, PostgreSQL and three workers on a loaded machine.
const HANG_MS = 300_000;

// The READMEs whose commands a user of this repository runs: the root's, each app's, the CLI's.
const readmes = (await readmePaths(root)).filter((path) => path === 'README.md' || path.startsWith('apps/') || path === 'packages/cli/README.md');

function report(outcome: CommandOutcome): string {
  const tail = outcome.output.trim().split('\n').slice(-25).join('\n');
  return `${outcome.where}: ${outcome.command}\n  ${outcome.problem}\n${tail}`;
}

describe('README commands', () => {
  for (const readme of readmes) {
    it(`every command of ${readme} runs and exits 0`, async () => {
      const blocks = (await readReadmeBlocks(root, [readme])).filter(isShellBlock);
      let copy: string | null = null;
      const failures: string[] = [];
      try {
        for (const block of blocks) {
          let cwd = root;
          let env = userEnvironment();
          if (block.markers.inCopy !== null) {
            copy ??= await copyRepository(root);
            cwd = copy;
            env = userEnvironment({ TURBO_CACHE_DIR: turboCache });
          }
          const outcomes = await runShellBlock(block, { cwd, env, hangMs: HANG_MS, onCommand: (outcome) => console.log(`[docs] ${outcome.problem === null ? 'ok  ' : 'FAIL'} ${outcome.where}: ${outcome.command}`) });
          failures.push(...outcomes.filter((outcome) => outcome.problem !== null).map(report));
        }
      } finally {
        if (copy !== null) {
          // The copy's own git worktrees and processes are its own: removing the folder is enough.
          spawnSync('chmod', ['-R', 'u+w', copy]);
          await rm(copy, { recursive: true, force: true });
        }
      }
      expect(failures).toEqual([]);
    });
  }
});
