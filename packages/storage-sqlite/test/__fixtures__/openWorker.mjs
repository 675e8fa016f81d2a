// Opens a (fresh) database at an agreed moment, appends one event to its own stream and
// reports the outcome: two of these started together race to create and migrate the file.
// Protocol: sends { type: 'booted' }, waits for { startAt }, spins until then, opens; the
// outcome says whether the message came `late` (at or after startAt: no spin, no race).
import process from 'node:process';
import { errorCode, newEvent } from '@roundtable/test-utils/workers';
import { createSqliteStorage } from '../../dist/index.js';

const [filename = '', name = ''] = process.argv.slice(2);

/** @param {boolean} late */
async function openAndAppend(late) {
  try {
    const storage = createSqliteStorage({ filename });
    const head = await storage.append(name, 0, [newEvent(`${name}-1`, null, { type: 'test:open', correlationId: name })]);
    await storage.close();
    process.send?.({ type: 'opened', head, late });
  } catch (error) {
    process.send?.({ type: 'failed', code: errorCode(error), message: String(error), late });
  }
  process.disconnect?.();
}

process.once('message', (/** @type {{ startAt: number }} */ { startAt }) => {
  const late = Date.now() >= startAt;
  while (Date.now() < startAt) {
    // Spin rather than sleep: both processes leave the loop within microseconds of each other.
  }
  void openAndAppend(late);
});
process.send?.({ type: 'booted' });
