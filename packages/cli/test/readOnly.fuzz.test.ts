import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, snapshotTree } from '@roundtable/test-utils';
import { STACK_LINE, assertBuilt, roundtable, writeRecord } from './__fixtures__/helpers.js';

/*
 * The class "a reader creates or changes a store", for inputs nobody listed: random reading
 * commands of the built binary over random locations — missing paths, empty and foreign folders,
 * folders with a `default/` of junk, foreign SQLite databases with random tables in either
 * journal mode, text and empty files under SQLite names, real fs and SQLite stores (and one of
 * their namespace folders), in random spellings and namespaces. Every command must end with a
 * clean result or a typed error, and the folder holding the location must be byte for byte,
 * mode for mode, as it was.
 */

/** Codes a command may answer over a location that is not a store. */
const NOT_A_STORE_CODES = /^roundtable: (NOT_A_STORE|STORE_NOT_FOUND|UNSUPPORTED_STORE|UNSAFE_STORAGE_PATH): /;

let scratch: string;
let fsBase: string;
let sqliteBase: string;

beforeAll(async () => {
  assertBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-cli-fuzz-'));
  fsBase = join(scratch, 'base-record');
  sqliteBase = join(scratch, 'base-record.db');
  await Promise.all([writeRecord('fs', fsBase, 'seed-run', 'seed'), writeRecord('sqlite', sqliteBase, 'seed-run', 'seed')]);
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const LOCATION_KINDS = ['missing', 'empty-folder', 'foreign-folder', 'default-junk', 'foreign-sqlite', 'text-file', 'empty-file', 'fs-store', 'fs-namespace-folder', 'sqlite-store'] as const;
type LocationKind = (typeof LOCATION_KINDS)[number];
const STORE_KINDS: readonly LocationKind[] = ['fs-store', 'sqlite-store'];

const location = fc.record({
  kind: fc.constantFrom(...LOCATION_KINDS),
  /** How `--store` spells it: a bare path, or with the adapter's prefix. */
  prefix: fc.constantFrom('', 'fs:', 'sqlite:'),
  /** The file name's ending (the CLI picks SQLite by `.sqlite`/`.db`, or by the header). */
  extension: fc.constantFrom('.db', '.sqlite', '.sqlite3', ''),
  names: fc.uniqueArray(fc.constantFrom('default', 'Default~1', 'run-1', '.tmp', 'notes.txt', 'head', '0000000000000001.batch', 'src'), { maxLength: 4 }),
  tables: fc.uniqueArray(fc.constantFrom('users', 'orders', 'streams', 'events', 'settings', 'Event log'), { maxLength: 3 }),
  journal: fc.constantFrom('delete', 'wal'),
});
type Location = typeof location extends fc.Arbitrary<infer T> ? T : never;

const command = fc.record({
  args: fc.constantFrom(['runs'], ['show', 'seed-run'], ['events', 'seed-run'], ['events', 'seed-run', '--after', '3'], ['tail', 'seed-run', '-n', '1'], ['verify', '--all'], ['verify', 'seed-run', 'other-run'], ['rooms', 'seed-run'], ['events', 'seed-run', '-f'], ['tail', 'seed-run', '-f'], ['view']),
  namespace: fc.constantFrom(null, 'default', 'Default', 'team-a'),
  json: fc.boolean(),
});

/** Makes the location of `spec` inside `folder` and returns its path. */
function makeLocation(folder: string, spec: Location): string {
  const file = join(folder, `location${spec.extension}`);
  const directory = join(folder, 'location');
  switch (spec.kind) {
    case 'missing':
      return join(folder, 'nothing', `here${spec.extension}`);
    case 'empty-folder':
      mkdirSync(directory);
      return directory;
    case 'foreign-folder':
    case 'default-junk': {
      const base = spec.kind === 'default-junk' ? join(directory, 'default') : directory;
      mkdirSync(base, { recursive: true });
      spec.names.forEach((name, index) => (index % 2 === 0 ? mkdirSync(join(base, name), { recursive: true }) : writeFileSync(join(base, name), `junk ${index}\n`)));
      return directory;
    }
    case 'foreign-sqlite': {
      const db = new Database(file);
      db.pragma(`journal_mode = ${spec.journal}`);
      db.pragma('user_version = 3');
      for (const table of spec.tables) db.exec(`CREATE TABLE "${table}" (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO "${table}" (value) VALUES ('kept')`);
      db.close();
      return file;
    }
    case 'text-file':
      writeFileSync(file, 'not a database\n');
      return file;
    case 'empty-file':
      writeFileSync(file, '');
      return file;
    case 'fs-store':
      cpSync(fsBase, directory, { recursive: true });
      return directory;
    case 'fs-namespace-folder':
      cpSync(fsBase, directory, { recursive: true });
      return join(directory, 'default');
    case 'sqlite-store':
      cpSync(sqliteBase, join(folder, 'location.db'));
      return join(folder, 'location.db');
  }
}

describe('reading commands over random locations', () => {
  const runs = FULL ? 200 : 24;
  it(`end clean or typed and change nothing under the location (${runs} random cases)`, { timeout: 60_000 + runs * 10_000 }, async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(location, command, async (spec, { args, namespace, json }) => {
        const folder = join(scratch, `case-${round++}`);
        mkdirSync(folder);
        const path = makeLocation(folder, spec);
        const isStore = STORE_KINDS.includes(spec.kind);
        // A `default/` holding a `.tmp/` folder is a namespace folder: that junk is a (damaged) store, which may be read.
        const storeShaped = isStore || (spec.kind === 'default-junk' && spec.names.some((name, index) => name === '.tmp' && index % 2 === 0));
        // A follow or a viewer over a real store runs until stopped: over a store, read once instead.
        const reading = isStore ? args.filter((arg) => arg !== '-f').map((arg) => (arg === 'view' ? 'runs' : arg)) : args;
        const full = [...reading, ...(reading[0] === 'rooms' ? ['--out', join(scratch, `rooms-${round}`)] : [])];
        if (namespace !== null) full.push('--namespace', namespace);
        if (json && !full.includes('-f') && ['runs', 'show', 'verify', 'events'].includes(full[0]!)) full.push('-o', 'json');
        const before = snapshotTree(folder);
        // Over a location that is not a store even a follow or the viewer must stop at once; the guard only ends a regression.
        const result = await roundtable([...full, '--store', `${spec.prefix}${path}`], {}, { timeoutMs: 20_000 });
        const what = `${full.join(' ')} --store ${spec.prefix}${path} (${spec.kind}): exit ${result.code}, ${result.stderr}`;
        expect([0, 1, 2], what).toContain(result.code);
        if (result.stderr !== '') expect(result.stderr, what).toMatch(/^roundtable: [A-Z_]+: /);
        expect(result.stderr + result.stdout, what).not.toMatch(STACK_LINE);
        if (!storeShaped) {
          expect(result.code, what).toBe(2);
          expect(result.stderr, what).toMatch(NOT_A_STORE_CODES);
        }
        expect(snapshotTree(folder), what).toEqual(before);
        rmSync(folder, { recursive: true, force: true });
      }),
      // No shrinking: each case runs a process, and the first counterexample already names the class.
      { numRuns: runs, seed: 23, endOnFailure: true },
    );
  });
});
