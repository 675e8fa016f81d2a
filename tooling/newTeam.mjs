#!/usr/bin/env node
// Makes apps/<name> from apps/starter: the starter's own files only (not its record, build or
// turbo state, node_modules, or src/trip.test.ts, the test of the starter's trip story), with
// the package renamed, then links it into the workspace with pnpm install.
// Usage: node tooling/newTeam.mjs <name>   (pnpm new-team <name>)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [name, ...extra] = process.argv.slice(2).filter((arg) => arg !== '--');
if (name === undefined || extra.length > 0) {
  console.error('Usage: pnpm new-team <name>   (makes apps/<name> from apps/starter)');
  process.exit(2);
}
if (!/^[a-z0-9][a-z0-9._-]{0,100}$/.test(name)) {
  console.error(`new-team: USAGE: ${JSON.stringify(name)} is not a usable app name: lower-case letters, digits, ".", "_" and "-", starting with a letter or digit.`);
  process.exit(2);
}
const starter = join(root, 'apps', 'starter');
const target = join(root, 'apps', name);
if (existsSync(target)) {
  console.error(`new-team: USAGE: apps/${name} exists already; pick another name or remove it.`);
  process.exit(2);
}

const LEFT_OUT = new Set(['.roundtable', '.turbo', 'node_modules', 'dist', 'src/trip.test.ts']);
cpSync(starter, target, { recursive: true, filter: (source) => !LEFT_OUT.has(relative(starter, source)) });

const manifestPath = join(target, 'package.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
manifest.name = name;
manifest.description = `A Roundtable team, made from apps/starter.`;
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

// --no-frozen-lockfile: the new package changes the lockfile, and pnpm freezes it when CI is set.
execFileSync('pnpm', ['install', '--offline', '--no-frozen-lockfile'], { cwd: root, stdio: 'inherit', env: { ...process.env, npm_config_update_notifier: 'false', pnpm_config_update_notifier: 'false' } });
console.log(`\napps/${name} is yours: edit apps/${name}/src/team.ts, run it with pnpm app ${name}.`);
