// A child process for the crash test. It loads the built package (child processes cannot load
// TypeScript), then waits for a storage directory on stdin, so the parent can start the next
// worker while the current one runs. Then it appends batches of 1–5 events round-robin to three
// streams as fast as it can, printing `ok <streamId> <batch key>` after each append resolves,
// until the parent kills it with SIGKILL (which it does after a number of those lines, not
// after a time). It packs batch files into segments every `segmentBatches` appends per stream.
import { pathToFileURL } from 'node:url';

const [entry = '', segmentBatches = '4'] = process.argv.slice(2);
/** @type {typeof import('../index.js')} */
const { createFsStorage } = await import(pathToFileURL(entry).href);
process.stdout.write('loaded\n');

/** @type {string} */
const directory = await new Promise((resolve) => {
  let text = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (/** @type {string} */ chunk) => {
    text += chunk;
    if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
  });
});

// Packing every few batches (the parent passes how many), so kills also land in the middle of packing.
const storage = createFsStorage({ directory, segmentBatches: Number(segmentBatches) });
const streams = ['crash-a', 'crash-b', 'Crash-C'];
const bulk = 'x'.repeat(64 * 1024);
// Load what is already there first, so the parent's kill lands among appends, not in the reopen.
for (const streamId of streams) await storage.head(streamId);
process.stdout.write('ready\n');

for (let n = 0; ; n++) {
  const streamId = streams[n % streams.length] ?? 'crash-a';
  const size = 1 + Math.floor(Math.random() * 5);
  const key = `${process.pid}.${n}`;
  const events = Array.from({ length: size }, (_, index) => ({
    eventId: `${key}.${index}.${size}`,
    type: 'crash:event',
    version: 1,
    timestamp: '2025-01-02T03:04:05.678Z',
    correlationId: 'crash',
    causationId: null,
    // Now and then a large batch, so kills also land in the middle of long writes.
    payload: { key, index, text: n % 7 === 3 ? bulk : 'small' },
  }));
  const head = await storage.head(streamId);
  await storage.append(streamId, head, events);
  process.stdout.write(`ok ${streamId} ${key}\n`);
}
