// Appends batches of 1–5 events to a few streams until it is killed. Each event's payload names
// its batch, its index and the batch size, so a reader can tell whole batches from torn ones.
// After each commit it reports the batch over IPC (a report may be lost to the kill; a commit
// that was reported must survive it).
import process from 'node:process';
import { createPostgresStorage } from '../dist/index.js';

const [connectionString = '', name = '', streamList = ''] = process.argv.slice(2);
const streamIds = streamList.split(',');
const storage = createPostgresStorage({ connectionString, maxConnections: 1 });
await storage.ready();
process.send?.({ type: 'ready' });

/** @param {unknown} error */
function isConflict(error) {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'REVISION_CONFLICT';
}

for (let seq = 0; ; seq++) {
  const streamId = streamIds[seq % streamIds.length] ?? 'crash';
  const size = 1 + (seq % 5);
  const batch = `${name}-${seq}`;
  const events = Array.from({ length: size }, (_, index) => ({
    eventId: `${batch}-${index}`,
    type: 'test:crash',
    version: 1,
    timestamp: '2025-01-02T03:04:05.678Z',
    correlationId: name,
    causationId: null,
    payload: { batch, index, size, filler: 'x'.repeat(2000 * (index + 1)) },
  }));
  for (;;) {
    const head = await storage.head(streamId);
    try {
      await storage.append(streamId, head, events);
      break;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  process.send?.({ type: 'committed', streamId, batch });
}
