import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const flowsDirectory = dirname(dirname(fileURLToPath(import.meta.url)));
const packagesDirectory = join(dirname(dirname(flowsDirectory)), 'packages');

interface PackageJson {
  readonly name: string;
  readonly private?: boolean;
  readonly exports: Record<string, unknown>;
}

/** Every entry point a user can install: each published package's exports, subpaths included. */
async function publishedEntries(): Promise<string[]> {
  const entries: string[] = [];
  for (const folder of (await readdir(packagesDirectory)).sort()) {
    const pkg = JSON.parse(await readFile(join(packagesDirectory, folder, 'package.json'), 'utf8')) as PackageJson;
    if (pkg.private === true) continue;
    for (const subpath of Object.keys(pkg.exports)) {
      if (subpath !== './package.json') entries.push(subpath === '.' ? pkg.name : `${pkg.name}${subpath.slice(1)}`);
    }
  }
  return entries;
}

// Runs in a CommonJS child: `require()` of each ESM entry (Node 20.19+ loads a synchronous ES
// module through require when the exports map offers a condition require matches: `default`).
const COMMONJS_CHILD = `
const entries = JSON.parse(process.env.ROUNDTABLE_ENTRIES);
const exportsOf = {};
for (const entry of entries) {
  const loaded = require(entry);
  exportsOf[entry] = Object.fromEntries(Object.keys(loaded).map((key) => [key, typeof loaded[key]]));
}
const runtime = require('@roundtable/runtime');
process.stdout.write(JSON.stringify({
  commonJs: typeof module === 'object' && typeof require === 'function' && typeof exports === 'object',
  exportsOf,
  canonical: require('@roundtable/core').canonicalJson({ b: 1, a: [-0] }),
  sameModule: runtime.StorageError === require('@roundtable/storage').StorageError,
  guard: runtime.isStorageError(new (require('@roundtable/storage').StorageError)('STORAGE_CLOSED', 'closed'), 'STORAGE_CLOSED'),
}));
`;

describe('require() from CommonJS', () => {
  it('loads every published package and subpath with all its exports, in a real CommonJS child process', async () => {
    const entries = await publishedEntries();
    expect(entries).toEqual(expect.arrayContaining(['@roundtable/core', '@roundtable/runtime', '@roundtable/storage/conformance', '@roundtable/cli']));
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=commonjs', '-e', COMMONJS_CHILD], {
      cwd: flowsDirectory,
      env: { ...process.env, ROUNDTABLE_ENTRIES: JSON.stringify(entries) },
      maxBuffer: 16 * 1024 * 1024,
    });
    const child = JSON.parse(stdout) as { commonJs: boolean; exportsOf: Record<string, Record<string, string>>; canonical: string; sameModule: boolean; guard: boolean };
    expect(child.commonJs).toBe(true);
    for (const entry of entries) {
      const imported = (await import(entry)) as Record<string, unknown>;
      const expected = Object.fromEntries(Object.keys(imported).map((key) => [key, typeof imported[key]]));
      expect(child.exportsOf[entry], entry).toEqual(expected);
      expect(Object.keys(expected).length, entry).toBeGreaterThan(0);
    }
    expect(child.canonical).toBe('{"a":[0],"b":1}');
    expect(child.sameModule).toBe(true);
    expect(child.guard).toBe(true);
  });
});
