#!/usr/bin/env node
// Installs the pinned pnpm (if missing) and the workspace's dependencies.
// Native addons build from source where no prebuilt binary can be downloaded, so point
// node-gyp at Node's own headers when the machine has them (pnpm ignores .npmrc's nodedir).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
// No "Update available" notices from npm or pnpm: the versions here are pinned on purpose.
// pnpm reads its own pnpm_config_ variables (npm's are not enough for it).
const quiet = { ...process.env, npm_config_update_notifier: 'false', pnpm_config_update_notifier: 'false' };
const { packageManager } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const wanted = packageManager.replace(/^pnpm@/, '');

function pnpmVersion() {
  try {
    return execFileSync('pnpm', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: quiet }).trim();
  } catch {
    return null;
  }
}

if (pnpmVersion() !== wanted) {
  console.log(`Installing pnpm@${wanted} with npm…`);
  execFileSync('npm', ['install', '--global', `pnpm@${wanted}`], { stdio: 'inherit', env: quiet });
}

const env = { ...quiet };
if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
const args = ['install'];
if (env.CI) args.push('--frozen-lockfile');
execFileSync('pnpm', args, { stdio: 'inherit', env, cwd: root });
