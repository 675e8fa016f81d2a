// The fault suite's global setup: each test file leaves its counts in a scratch directory, and
// once every file has run this prints the totals. In the long form (FAULT_SCALE=full) it also
// fails the run unless the reliability goals were reached: at least 1,000 SIGKILLs per durable
// adapter and at least 100,000 fuzz cases in all.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULT_COUNTS_DIRECTORY_ENV, FULL, faultLine } from './faultReport.js';
import type { FaultFileReport } from './faultReport.js';

export const MIN_KILLS_PER_DURABLE_ADAPTER = 1_000;
export const MIN_FUZZ_CASES = 100_000;
const DURABLE_ADAPTERS = ['fs', 'sqlite'];

function add(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, value] of Object.entries(from)) into[key] = (into[key] ?? 0) + value;
}

export default function setup(): () => void {
  const directory = mkdtempSync(join(tmpdir(), 'roundtable-fault-counts-'));
  process.env[FAULT_COUNTS_DIRECTORY_ENV] = directory;
  const started = Date.now();
  return () => {
    const reports = readdirSync(directory)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(directory, name), 'utf8')) as FaultFileReport);
    rmSync(directory, { recursive: true, force: true });
    const counts = { kills: 0, damagedFiles: 0, diskFullRuns: 0, fuzzCases: 0, typedErrors: 0, recoveredRuns: 0, accepted: 0 };
    const kills: Record<string, number> = {};
    const fuzz: Record<string, number> = {};
    for (const report of reports) {
      add(counts, report.counts);
      add(kills, report.killsByAdapter);
      // Files that only count fuzzCases (no kinds) are listed under their suite name.
      const kinds = Object.values(report.fuzzByKind).reduce((sum, value) => sum + value, 0);
      add(fuzz, report.fuzzByKind);
      if (report.counts.fuzzCases > kinds) fuzz[report.suite] = (fuzz[report.suite] ?? 0) + report.counts.fuzzCases - kinds;
    }
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    console.log(`${faultLine(`total over ${reports.length} files (${FULL ? 'long form' : 'bounded form'}, ${minutes} min)`, counts, kills, fuzz)}`);
    if (!FULL) return;
    const short = DURABLE_ADAPTERS.filter((adapter) => (kills[adapter] ?? 0) < MIN_KILLS_PER_DURABLE_ADAPTER);
    if (short.length > 0) throw new Error(`[faults] the long form needs ${MIN_KILLS_PER_DURABLE_ADAPTER} kills per durable adapter; short: ${short.join(', ')}.`);
    if (counts.fuzzCases < MIN_FUZZ_CASES) throw new Error(`[faults] the long form needs ${MIN_FUZZ_CASES} fuzz cases; it ran ${counts.fuzzCases}.`);
  };
}
