import { describe, expect, it } from 'vitest';
import { runExample } from './runExample.js';

describe('the workers example', () => {
  it('two worker processes share eight runs, and every result equals a single-process run', async () => {
    const lines: string[] = [];
    const report = await runExample({ workers: 2, runs: 8, thinkMs: 10, log: (line) => lines.push(line) });
    expect(report.mismatches).toEqual([]);
    expect(report.ok).toBe(true);
    expect(Object.values(report.settledBy).reduce((sum, n) => sum + n, 0)).toBe(8);
    expect(report.stats).toHaveLength(2);
    // A job that failed (a database too busy on a loaded machine) is retried, so its run settles
    // like the others: the results above are the check, not a count of errors, which depends on load.
    expect(lines.at(-1)).toMatch(/8 runs in/);
  });
});
