// Counts what the fault suite did, printed once at the end of each file.
export const faultCounts = { kills: 0, damagedFiles: 0, diskFullRuns: 0, fuzzCases: 0, typedErrors: 0, recoveredRuns: 0 };

export function reportFaults(suite: string): void {
  const { kills, damagedFiles, diskFullRuns, fuzzCases, typedErrors, recoveredRuns } = faultCounts;
  console.log(
    `[faults] ${suite}: ${kills} kills, ${damagedFiles} damaged files, ${diskFullRuns} disk-full runs, ${fuzzCases} fuzz cases; ` +
      `${recoveredRuns} recovered runs and ${typedErrors} typed errors, no other outcome.`,
  );
}

/** FAULT_SCALE=full runs the long form; the default is the bounded form CI runs. */
export const FULL = process.env.FAULT_SCALE === 'full';
