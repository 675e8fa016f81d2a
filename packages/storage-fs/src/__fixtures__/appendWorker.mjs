// Appends `count` single-event batches to a stream from a separate process, one every few ms.
import { setTimeout as sleep } from 'node:timers/promises';

const [entry, directory, streamId, from, count] = process.argv.slice(2);
const { createFsStorage } = await import(String(entry));
const storage = createFsStorage({ directory });
for (let revision = Number(from); revision < Number(from) + Number(count); revision++) {
  const event = { eventId: `child-${revision + 1}`, type: 'test:event', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: 'run', causationId: null, payload: { revision: revision + 1 } };
  await storage.append(streamId, revision, [event]);
  await sleep(5);
}
await storage.close();
