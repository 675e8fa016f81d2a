// Races appends for the cross-process test. Commands arrive over IPC:
//   { type: 'append', streamId, expectedRevision, eventId } → { type: 'result', eventId, head } or { type: 'result', eventId, code }
//   { type: 'free-for-all', streamId, count } appends `count` events, retrying conflicts → { type: 'done', conflicts }
import process from 'node:process';
import { createPostgresStorage } from '../dist/index.js';

/** @typedef {{ type: 'append'; streamId: string; expectedRevision: number; eventId: string } | { type: 'free-for-all'; streamId: string; count: number } | { type: 'close' }} Command */

const [connectionString = '', name = ''] = process.argv.slice(2);
const storage = createPostgresStorage({ connectionString, maxConnections: 2 });
await storage.ready();

/** @param {unknown} message */
function send(message) {
  process.send?.(message);
}

/** @param {unknown} error */
function codeOf(error) {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
}

/** @param {string} eventId */
function event(eventId) {
  return { eventId, type: 'test:race', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: name, causationId: null, payload: { by: name } };
}

/** @param {{ streamId: string; expectedRevision: number; eventId: string }} command */
async function appendOnce({ streamId, expectedRevision, eventId }) {
  try {
    const head = await storage.append(streamId, expectedRevision, [event(eventId)]);
    send({ type: 'result', eventId, head });
  } catch (error) {
    send({ type: 'result', eventId, code: codeOf(error) });
  }
}

/** @param {{ streamId: string; count: number }} command */
async function freeForAll({ streamId, count }) {
  let conflicts = 0;
  for (let i = 0; i < count; i++) {
    for (;;) {
      const head = await storage.head(streamId);
      try {
        await storage.append(streamId, head, [event(`${name}-free-${i}`)]);
        break;
      } catch (error) {
        if (codeOf(error) !== 'REVISION_CONFLICT') throw error;
        conflicts++;
      }
    }
  }
  send({ type: 'done', conflicts });
}

process.on('message', (/** @type {Command} */ message) => {
  if (message.type === 'append') void appendOnce(message);
  else if (message.type === 'free-for-all') void freeForAll(message);
  else void storage.close().then(() => process.disconnect());
});
send({ type: 'ready' });
