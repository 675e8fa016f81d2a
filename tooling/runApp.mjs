#!/usr/bin/env node
// Runs a workspace package's program: builds the packages it depends on (and it, if it has a
// build) with turbo, showing turbo's output only when the build fails, then runs the program
// in this very process with the remaining arguments. Usage:
//   node tooling/runApp.mjs <package name> [--] [args...]
// The program is the package's `start` script when that is `node <file>` or `tsx <file>` (run in
// the package's folder, as `pnpm run start` would), else its one `bin` (run in this folder).
//
// One process, so signals reach the program: the root scripts `exec` this file, so `pnpm demo`
// is pnpm and one node process under it. Ctrl-C and SIGTERM go straight to the program, and
// when pnpm itself is killed (kill -9 leaves no one to forward anything), the program notices
// its parent is gone and gets SIGTERM, as it would from a terminal that closed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [name, ...rest] = process.argv.slice(2);
if (!name) {
  console.error('Usage: node tooling/runApp.mjs <package name> [--] [args...]');
  process.exit(2);
}
// `pnpm demo -- --keep out` passes the `--` through; the program's arguments start after it.
const args = rest[0] === '--' ? rest.slice(1) : rest;

function findPackage(packageName) {
  for (const folder of ['apps', 'packages']) {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const file = join(root, folder, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (manifest.name === packageName) return { directory: join(root, folder, entry.name), manifest };
    }
  }
  return null;
}

const found = findPackage(name);
if (found === null) {
  console.error(`runApp: no package named ${JSON.stringify(name)} in apps/ or packages/ (its package.json "name"; after adding one, run pnpm install).`);
  process.exit(2);
}
const { directory, manifest } = found;
const start = /^(node|tsx) (\S+)$/.exec(manifest.scripts?.start ?? '');
const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
if (start === null && bins.length !== 1) {
  console.error(`runApp: ${name} has neither a start script "node <file>" or "tsx <file>" nor one bin.`);
  process.exit(2);
}

const env = { ...process.env, npm_config_update_notifier: 'false', pnpm_config_update_notifier: 'false', TURBO_TELEMETRY_DISABLED: '1' };
const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', `--filter=${name}...`, '--output-logs=errors-only'], { cwd: root, env, encoding: 'utf8' });
if (build.status !== 0) {
  process.stdout.write(build.stdout ?? '');
  process.stderr.write(build.stderr ?? (build.error ? `${build.error.message}\n` : ''));
  process.exit(build.status ?? 1);
}

const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
}, 500).unref();

const entry = start === null ? resolve(directory, bins[0]) : resolve(directory, start[2]);
if (start !== null) process.chdir(directory);
if (start?.[1] === 'tsx') {
  // tsx's ESM API, as the app's own tsx resolves it for `import` (require would get its CJS twin).
  const tsxManifest = createRequire(join(directory, 'package.json')).resolve('tsx/package.json');
  const api = JSON.parse(readFileSync(tsxManifest, 'utf8')).exports['./esm/api'].import.default;
  const { register } = await import(pathToFileURL(join(dirname(tsxManifest), api)).href);
  register();
}
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
