import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { messageOfType as isType } from '@roundtable/test-utils';
import { createRunClient } from '../src/index.js';
import type { WorkerStats } from '../src/index.js';
import { workersTeamGraph } from './__fixtures__/team.mjs';
import { attemptCounts, childProcessDatabase, exited, forkFixture, isAttempt, letAttemptGo, nextMessage, referenceRun, savedMessages } from './__fixtures__/helpers.js';
import type { AttemptMessage } from './__fixtures__/helpers.js';

// A worker frozen (SIGSTOP) in the middle of an attempt stops renewing its lease; another worker
// takes the position over (attempt 2) and completes it. When the frozen worker thaws and its
// member returns, its outcome is refused by the append at the expected revision: it writes nothing.
// The frozen worker is gated (see workerProcess.mjs): its member waits for the test's go, so the
// freeze lands inside the attempt and the member returns only after the takeover, on a machine
// of any speed (a timed member could finish before the SIGSTOP arrived).

const TURNS = 2;
const { children, database } = childProcessDatabase('workers_lease');

it('a worker whose lease was taken over is refused when it writes, and the run ends as if it had never run', async () => {
  const reference = await referenceRun(TURNS);
  const options = { turns: TURNS, waitMs: 100, concurrency: 1, leaseMs: 1000 };
  const frozen = forkFixture('workerProcess.mjs', [database().url, 'frozen', JSON.stringify({ ...options, gated: true })]);
  children.push(frozen);
  // The frozen worker's first attempt is held until the takeover is done; any later one goes on at once.
  const held = new Promise<AttemptMessage>((resolve) => {
    let first: AttemptMessage | null = null;
    frozen.on('message', (message: unknown) => {
      if (!isAttempt(message)) return;
      if (first === null) resolve((first = message));
      else letAttemptGo(frozen, message.attempt);
    });
  });
  await nextMessage(frozen, isType('ready'));
  const client = await createRunClient({ connectionString: database().url });
  const storage = createPostgresStorage({ connectionString: database().url });
  try {
    await client.submitRun({ runId: 'lease', graph: workersTeamGraph(TURNS) });
    const { position, attempt } = await held;
    frozen.kill('SIGSTOP');

    const rescuer = forkFixture('workerProcess.mjs', [database().url, 'rescuer', JSON.stringify(options)]);
    children.push(rescuer);
    await nextMessage(rescuer, isType('ready'));
    // Wait until the rescuer has completed the frozen worker's position.
    for (;;) {
      const counts = (await attemptCounts(storage, 'lease')).get(position);
      if (counts !== undefined && counts.completions === 1) break;
      await sleep(100);
    }
    const taken = (await attemptCounts(storage, 'lease')).get(position)!;
    expect(taken.starts).toBe(2);

    frozen.kill('SIGCONT');
    letAttemptGo(frozen, attempt);
    // The frozen worker's member returns now; let its write be tried and refused.
    let frozenStats: WorkerStats;
    for (;;) {
      frozen.send({ type: 'stats' });
      frozenStats = (await nextMessage(frozen, isType<{ type: 'stats'; stats: WorkerStats }>('stats'))).stats;
      // The refusal is counted before the job's completion finds the lease gone: wait for both.
      if ((frozenStats.refused > 0 && frozenStats.leasesLost > 0) || frozenStats.errors > 0) break;
      await sleep(50);
    }
    // Its outcome was refused, it knew its lease was gone, and nothing failed.
    expect(frozenStats).toMatchObject({ refused: 1, leasesLost: 1, errors: 0 });

    for (;;) {
      const status = await client.runStatus({ runId: 'lease' });
      if (status.kind !== 'waiting') {
        expect(status).toEqual(reference.result);
        break;
      }
      await sleep(100);
    }
    expect(await savedMessages(storage, 'lease', TURNS)).toEqual(reference.messages);
    const counts = (await attemptCounts(storage, 'lease')).get(position)!;
    expect(counts).toMatchObject({ starts: 2, completions: 1, outcomes: 1 });
    // The completion is attempt 2's: after the rescuer's node-resumed, nothing of attempt 1 was written.
    const about: string[] = [];
    for await (const event of storage.read('lease')) if ((event.payload as { position?: string }).position === position) about.push(event.type);
    expect(about).toEqual(['graph:node-dispatched', 'graph:node-attempt-started', 'graph:node-resumed', 'graph:node-attempt-started', 'graph:node-completed']);
  } finally {
    await client.close();
    await storage.close();
  }
  for (const child of children) child.send({ type: 'close' });
  await Promise.all(children.map((child) => exited(child)));
});
