import type { CaseContext } from './harness.js';

/** One named conformance case: the rule it holds the adapter to, and the check. */
export interface ConformanceCaseDefinition {
  readonly name: string;
  readonly rule: string;
  run(context: CaseContext): Promise<void>;
}
