import { followStream } from '@roundtable/storage';
import type { NewEvent } from '@roundtable/storage';
import { createBenchStore } from './workloads.js';
import type { AdapterName } from './workloads.js';

export interface FollowReport {
  events: number;
  batchSize: number;
  /** Events per second delivered to the follower, from the first append to the last delivery. */
  deliveredEventsPerSecond: number;
  /** How long after the writer's last append resolved the follower had the last event. */
  lagAfterLastAppendMs: number;
  appendMs: number;
}

function event(index: number): NewEvent {
  return { eventId: `f-${index}`, type: 'bench:follow', version: 1, timestamp: '2026-01-01T00:00:00.000Z', correlationId: 'bench', causationId: null, payload: { index } };
}

/**
 * A writer instance appends `events` events in batches of `batchSize` while a follower on
 * another instance over the same data runs `followStream` from revision 0. The follower checks
 * that it gets every event exactly once, in order (the job fails otherwise).
 */
export async function benchFollow(adapter: AdapterName, events: number, batchSize = 10): Promise<FollowReport> {
  const store = await createBenchStore(adapter);
  const writer = store.open();
  const follower = store.open();
  try {
    const controller = new AbortController();
    let delivered = 0;
    let lastDeliveredAt = 0;
    const following = (async () => {
      for await (const stored of followStream(follower, 'bench', { signal: controller.signal })) {
        if (stored.revision !== delivered + 1 || (stored.payload as { index: number }).index !== delivered + 1) {
          throw new Error(`follow delivered revision ${stored.revision} after ${delivered}`);
        }
        delivered++;
        if (delivered === events) {
          lastDeliveredAt = performance.now();
          controller.abort();
        }
      }
    })();
    const started = performance.now();
    let head = 0;
    while (head < events) {
      const size = Math.min(batchSize, events - head);
      head = await writer.append('bench', head, Array.from({ length: size }, (_, i) => event(head + i + 1)));
    }
    const appendedAt = performance.now();
    await following;
    if (delivered !== events) throw new Error(`follow delivered ${delivered} of ${events} events`);
    return {
      events: delivered,
      batchSize,
      deliveredEventsPerSecond: (delivered / (lastDeliveredAt - started)) * 1000,
      lagAfterLastAppendMs: Math.max(0, lastDeliveredAt - appendedAt),
      appendMs: appendedAt - started,
    };
  } finally {
    await writer.close();
    await follower.close();
    await store.dispose();
  }
}
