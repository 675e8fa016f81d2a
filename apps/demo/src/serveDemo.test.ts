import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerPause } from '@roundtable/runtime';
import { createFsStorage } from '@roundtable/storage-fs';
import { createSqliteStorage } from '@roundtable/storage-sqlite';

// `pnpm demo -- --serve` (SPEC 20): the built demo pauses at the reviewer's approval, prints the
// answer command and waits in `executor.serve`; an answer appended by another process (this
// test) lets it go on by itself to the usual checks. Ctrl-C while it waits ends it cleanly.

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'roundtable-demo-serve-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function startDemo(args: readonly string[]) {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // A hang guard only: vitest's timeout ends a wait that never holds.
  const waitFor = async (text: string) => {
    while (!stdout.includes(text)) {
      if (child.exitCode !== null) throw new Error(`the demo exited ${child.exitCode} before printing ${JSON.stringify(text)}:\n${stdout}\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, ended, waitFor, out: () => stdout, err: () => stderr };
}

describe('pnpm demo -- --serve', () => {
  it.each(['fs', 'sqlite'] as const)('waits at the approval on %s and completes once another process answers it as printed', async (storage) => {
    const demo = startDemo(['--serve', '--storage', storage, '--keep', join(scratch, storage)]);
    await demo.waitFor('Waiting for the answer');
    const command = /pnpm roundtable answer (\S+) (\S+) --approve --paused-at (\d+) --store (\S+)/.exec(demo.out())!;
    expect(command, demo.out()).not.toBeNull();
    const [, runId, position, pausedAt, store] = command;
    expect([runId, position]).toEqual(['release-team-run', 'team/reviewer/1']);
    const location = store!.slice(store!.indexOf(':') + 1);
    const operator = storage === 'fs' ? createFsStorage({ directory: location }) : createSqliteStorage({ filename: location });
    try {
      await answerPause({ storage: operator, runId: runId!, position: position!, value: { approved: true }, pausedAt: Number(pausedAt) });
    } finally {
      await operator.close();
    }
    expect(await demo.ended, demo.err()).toBe(0);
    expect(demo.out()).toContain('Success: the conversation completed');
    expect(demo.out()).not.toContain('FAIL');
  });

  it('stops cleanly on Ctrl-C while it waits, keeping the pause', async () => {
    const demo = startDemo(['--serve', '--keep', join(scratch, 'stopped')]);
    await demo.waitFor('Waiting for the answer');
    demo.child.kill('SIGINT');
    expect(await demo.ended).toBe(0);
    expect(demo.out()).toContain(`Stopped while the run waited for its answer: the pause is kept in ${join(scratch, 'stopped')}.`);
  });

  it('refuses --serve on a record no other process can reach', async () => {
    for (const storage of ['memory', 'postgres']) {
      const demo = startDemo(['--serve', '--storage', storage]);
      expect(await demo.ended).toBe(2);
      expect(demo.err()).toContain('--serve needs a record that roundtable answer in another process can reach');
    }
  });
});
