import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isCliError } from './cliError.js';
import { describeStore, loadPostgresAdapter, parseStoreSpec } from './openStore.js';

const scratch = mkdtempSync(join(tmpdir(), 'roundtable-store-spec-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('parseStoreSpec', () => {
  it('reads every documented form and refuses stores that do not exist', () => {
    mkdirSync(join(scratch, 'dir'));
    writeFileSync(join(scratch, 'runs.db'), '');
    writeFileSync(join(scratch, 'plain.txt'), 'hello');
    writeFileSync(join(scratch, 'headered'), Buffer.concat([Buffer.from('SQLite format 3\u0000', 'latin1'), Buffer.alloc(100)]));
    expect(parseStoreSpec(`fs:${join(scratch, 'dir')}`)).toEqual({ adapter: 'fs', directory: join(scratch, 'dir') });
    expect(parseStoreSpec(join(scratch, 'dir'))).toEqual({ adapter: 'fs', directory: join(scratch, 'dir') });
    expect(parseStoreSpec(join(scratch, 'runs.db'))).toEqual({ adapter: 'sqlite', filename: join(scratch, 'runs.db') });
    expect(parseStoreSpec(`sqlite:${join(scratch, 'headered')}`)).toEqual({ adapter: 'sqlite', filename: join(scratch, 'headered') });
    expect(parseStoreSpec(join(scratch, 'headered'))).toEqual({ adapter: 'sqlite', filename: join(scratch, 'headered') });
    expect(parseStoreSpec('postgresql://u:p@db.example/x')).toEqual({ adapter: 'postgres', connectionString: 'postgresql://u:p@db.example/x' });
    const refusals: [string, string][] = [
      ['', 'USAGE'],
      [join(scratch, 'missing'), 'STORE_NOT_FOUND'],
      [`fs:${join(scratch, 'runs.db')}`, 'STORE_NOT_FOUND'],
      [`sqlite:${join(scratch, 'dir')}`, 'STORE_NOT_FOUND'],
      [join(scratch, 'plain.txt'), 'UNSUPPORTED_STORE'],
      ['redis://x', 'UNSUPPORTED_STORE'],
    ];
    for (const [store, code] of refusals) {
      let caught: unknown;
      try {
        parseStoreSpec(store);
      } catch (error) {
        caught = error;
      }
      expect(isCliError(caught, code as never), `${store} → ${code}`).toBe(true);
    }
  });

  it('never shows a password when describing a store', () => {
    expect(describeStore({ adapter: 'postgres', connectionString: 'postgres://alice:s3cret@db:5432/runs' })).toBe('postgres://alice:***@db:5432/runs');
  });

  it('reports a missing PostgreSQL adapter as STORE_ADAPTER_MISSING', async () => {
    const error = await loadPostgresAdapter('@roundtable/no-such-adapter').catch((caught: unknown) => caught);
    expect(isCliError(error, 'STORE_ADAPTER_MISSING')).toBe(true);
  });
});
