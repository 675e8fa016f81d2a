// Opens a (fresh) database at an agreed moment, appends one event to its own stream and
// reports the outcome: two of these started together race to create and migrate the file.
// Protocol: sends { type: 'booted' }, waits for { startAt }, spins until then, opens.
import process from 'node:process';
import { createSqliteStorage } from '../dist/index.js';

const [filename = '', name = ''] = process.argv.slice(2);

async function openAndAppend() {
  try {
    const storage = createSqliteStorage({ filename });
    const head = await storage.append(name, 0, [
      { eventId: `${name}-1`, type: 'test:open', version: 1, timestamp: '2025-01-02T03:04:05.678Z', correlationId: name, causationId: null, payload: null },
    ]);
    await storage.close();
    process.send?.({ type: 'opened', head });
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : null;
    process.send?.({ type: 'failed', code, message: String(error) });
  }
  process.disconnect?.();
}

process.once('message', (/** @type {{ startAt: number }} */ { startAt }) => {
  while (Date.now() < startAt) {
    // Spin rather than sleep: both processes leave the loop within microseconds of each other.
  }
  void openAndAppend();
});
process.send?.({ type: 'booted' });
