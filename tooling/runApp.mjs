#!/usr/bin/env node
// Runs a workspace app: builds the packages it depends on (and the app, if it has a build) with
// turbo, showing turbo's output only when the build fails, then runs the app's `start` script
// with the remaining arguments. Usage: node tooling/runApp.mjs <package name> [args...]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [app, ...rest] = process.argv.slice(2);
if (!app) {
  console.error('Usage: node tooling/runApp.mjs <package name> [args...]');
  process.exit(2);
}
const args = rest.filter((arg) => arg !== '--');
const env = { ...process.env, npm_config_update_notifier: 'false', TURBO_TELEMETRY_DISABLED: '1' };

const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', `--filter=${app}...`, '--output-logs=errors-only'], { cwd: root, env, encoding: 'utf8' });
if (build.status !== 0) {
  process.stdout.write(build.stdout ?? '');
  process.stderr.write(build.stderr ?? (build.error ? `${build.error.message}\n` : ''));
  process.exit(build.status ?? 1);
}
const run = spawnSync('pnpm', ['--silent', '--filter', app, 'run', 'start', ...args], { cwd: root, env, stdio: 'inherit' });
process.exit(run.status ?? 1);
