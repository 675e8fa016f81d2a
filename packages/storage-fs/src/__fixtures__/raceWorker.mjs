// A child process for the cross-process race test. Each round comes in two messages: on `read`
// it reads the head and reports it; on `append` (sent to both workers only once both have read)
// it appends a batch at the revision the parent names and reports the outcome. It imports the
// built package: child processes cannot load TypeScript.
import { pathToFileURL } from 'node:url';

const [entry = '', directory = '', name = '', batchSizeText = '3', segmentBatchesText = '256'] = process.argv.slice(2);
const batchSize = Number(batchSizeText);
/** @type {typeof import('../index.js')} */
const { createFsStorage } = await import(pathToFileURL(entry).href);
const storage = createFsStorage({ directory, segmentBatches: Number(segmentBatchesText) });

/** @param {unknown} error */
function codeOf(error) {
  const code = typeof error === 'object' && error !== null ? /** @type {{ code?: unknown }} */ (error).code : undefined;
  return typeof code === 'string' ? code : String(error);
}

/** @param {number} round */
function batch(round) {
  return Array.from({ length: batchSize }, (_, index) => ({
    eventId: `${name}-${round}-${index}`,
    type: 'race:event',
    version: 1,
    timestamp: '2025-01-02T03:04:05.678Z',
    correlationId: 'race',
    causationId: null,
    payload: { worker: name, round, index },
  }));
}

process.on('message', (/** @type {unknown} */ message) => {
  const { step, round, expected } = /** @type {{ step: 'read' | 'append', round: number, expected: number }} */ (message);
  void (async () => {
    if (step === 'read') {
      process.send?.({ round, head: await storage.head('race') });
      return;
    }
    try {
      await storage.append('race', expected, batch(round));
      process.send?.({ round, outcome: 'win' });
    } catch (error) {
      process.send?.({ round, outcome: codeOf(error) });
    }
  })();
});
// Close first: a pack queued behind the last append, and its removals, finish before the exit.
process.on('disconnect', () => void storage.close().then(() => process.exit(0)));
process.send?.({ ready: true });
