import { checkBatchFile } from './batchFile.js';
import type { CheckedBatch } from './batchFile.js';
import { readFileSync } from './safeFs.js';

/**
 * The head marker's name in a stream folder. After each append it is (by a rename of the
 * append's temp file) a copy of the newest batch, so it records the last revision: a stream
 * folder whose batches end before it is missing its newest batches, and reads fail closed.
 */
export const HEAD_MARKER = 'head';

/** Reads and checks the head marker of `streamId` in `folder`: a whole batch file, or null when there is none. */
export function readHeadMarker(folder: string, streamId: string): CheckedBatch | null {
  const bytes = readFileSync(folder, HEAD_MARKER, streamId);
  return bytes === null ? null : checkBatchFile(bytes, { streamId, first: null, label: `head marker (${HEAD_MARKER})` });
}
