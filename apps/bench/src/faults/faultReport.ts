import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** FAULT_SCALE=full runs the long form; the default is the bounded form CI runs. */
export const FULL = process.env.FAULT_SCALE === 'full';

/** Where each test file leaves its counts for the run's totals (set by faultTotals.ts, the global setup). */
export const FAULT_COUNTS_DIRECTORY_ENV = 'ROUNDTABLE_FAULT_COUNTS_DIR';

/**
 * Counts what the fault suite did in this test file, printed once at its end. Every case ends
 * in exactly one outcome: a recovered run (a killed or damaged run finished with the
 * uninterrupted output, or a fuzzed member's run completed), a typed error (a RoundtableError
 * with a stable code), or accepted (a valid input compiled or read back exactly as written).
 */
export const faultCounts = {
  kills: 0,
  damagedFiles: 0,
  diskFullRuns: 0,
  fuzzCases: 0,
  typedErrors: 0,
  recoveredRuns: 0,
  accepted: 0,
};

/** SIGKILLs by adapter (`fs`, `sqlite`, …). */
export const killsByAdapter: Record<string, number> = {};

/** Fuzz cases by what was fuzzed: definitions, results, thrown values, records, files, envelopes. */
export const fuzzByKind: Record<string, number> = {};

export function countKill(adapter: string): void {
  faultCounts.kills++;
  killsByAdapter[adapter] = (killsByAdapter[adapter] ?? 0) + 1;
}

export function countFuzzCase(kind: string): void {
  faultCounts.fuzzCases++;
  fuzzByKind[kind] = (fuzzByKind[kind] ?? 0) + 1;
}

export interface FaultFileReport {
  readonly suite: string;
  readonly counts: typeof faultCounts;
  readonly killsByAdapter: Record<string, number>;
  readonly fuzzByKind: Record<string, number>;
}

const describeMap = (map: Record<string, number>) =>
  Object.entries(map)
    .map(([key, count]) => `${key} ${count.toLocaleString('en-US')}`)
    .join(', ');

/** One line of counts, as each file and the totals print it. */
export function faultLine(suite: string, counts: typeof faultCounts, kills: Record<string, number>, fuzz: Record<string, number>): string {
  const { kills: killCount, damagedFiles, diskFullRuns, fuzzCases, typedErrors, recoveredRuns, accepted } = counts;
  const n = (value: number) => value.toLocaleString('en-US');
  return (
    `[faults] ${suite}: ${n(killCount)} kills${Object.keys(kills).length > 0 ? ` (${describeMap(kills)})` : ''}, ${n(damagedFiles)} damaged files, ` +
    `${n(diskFullRuns)} disk-full runs, ${n(fuzzCases)} fuzz cases${Object.keys(fuzz).length > 0 ? ` (${describeMap(fuzz)})` : ''}; ` +
    `${n(recoveredRuns)} recovered runs, ${n(typedErrors)} typed errors and ${n(accepted)} accepted inputs, no other outcome.`
  );
}

/** Prints this file's counts and leaves them for the totals. */
export function reportFaults(suite: string): void {
  console.log(faultLine(suite, faultCounts, killsByAdapter, fuzzByKind));
  const directory = process.env[FAULT_COUNTS_DIRECTORY_ENV];
  if (directory === undefined) return;
  mkdirSync(directory, { recursive: true });
  const report: FaultFileReport = { suite, counts: faultCounts, killsByAdapter, fuzzByKind };
  writeFileSync(join(directory, `${suite.replace(/[^A-Za-z0-9-]+/g, '-')}-${process.pid}-${Date.now()}.json`), JSON.stringify(report));
}
