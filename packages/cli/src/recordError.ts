import { RoundtableError } from '@roundtable/core';
import type { RecordProblem } from './runInspector.js';

/** A problem the inspector found, as a typed error for the command's caller (printed as code and message). */
export function recordError(problem: RecordProblem): RoundtableError {
  return new RoundtableError(problem.code, `At revision ${problem.revision}: ${problem.message}`, { details: { revision: problem.revision } });
}
