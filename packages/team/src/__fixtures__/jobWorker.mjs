// A child process for the crash tests: runs (or recovers) a three-agent team job with a
// two-reviewer panel on an fs record until it ends, or reports what the record holds.
// Usage: jobWorker.mjs run <repository> <store> <log> [<kill point>]  |  jobWorker.mjs verify <store>
// A run passes named progress points and prints each as `point <label>`: before and after each
// append, one label per event (`before graph:node-completed agent/alpha`), and each step of an
// agent or reviewer (`alpha started`, `alpha wrote a1.txt`, `first reviewing`). Given a kill
// point (a label, or `#<n>` for this process's n-th point) it SIGKILLs itself on reaching it:
// where a kill lands depends on the job's progress, never on how fast the machine is.
import { appendFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFsStorage } from '@roundtable/storage-fs';
import { delegateStorage } from '@roundtable/storage/adapter';
import { team } from '../../dist/index.js';

const [mode, ...args] = process.argv.slice(2);
const RUN_ID = 'crash-job';
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

const killPoint = mode === 'run' ? args[3] : undefined;
let points = 0;
/** A progress point: printed, and the end of this process if it is the kill point. */
function reached(label) {
  points++;
  process.stdout.write(`point ${label}\n`);
  if (label === killPoint || `#${points}` === killPoint) process.kill(process.pid, 'SIGKILL');
}

/** The fs storage with a progress point before and after each event an append writes. */
function pointedStorage(store) {
  const inner = createFsStorage({ directory: store });
  const labels = (events) => events.map((event) => `${event.type} ${event.payload?.position ?? ''}`.trimEnd());
  return delegateStorage(inner, {
    append: async (streamId, expectedRevision, events) => {
      for (const label of labels(events)) reached(`before ${label}`);
      const head = await inner.append(streamId, expectedRevision, events);
      for (const label of labels(events)) reached(`after ${label}`);
      return head;
    },
  });
}

/** True when the record already holds an outcome for `nodeId`: running it now would be a second run. */
async function recorded(store, nodeId) {
  const storage = createFsStorage({ directory: store });
  try {
    for await (const event of storage.read(RUN_ID)) {
      if ((event.type === 'graph:node-completed' || event.type === 'graph:node-failed') && event.payload.nodeId === nodeId) return true;
    }
    return false;
  } finally {
    await storage.close();
  }
}

function agent(name, files, store, log) {
  return {
    name,
    role: `${name} role`,
    brief: `Write ${files.join(', ')}.`,
    run: async ({ workspace }) => {
      appendFileSync(log, `start ${name} ${process.pid}\n`);
      if (await recorded(store, `agent/${name}`)) appendFileSync(log, `VIOLATION ${name} ran after its outcome was recorded\n`);
      reached(`${name} started`);
      for (const file of files) {
        await sleep(5);
        await writeFile(join(workspace, file), `${name} wrote ${file}\n`);
        reached(`${name} wrote ${file}`);
      }
      appendFileSync(log, `pass ${name} ${process.pid}\n`);
      return { status: 'pass', summary: `${name} wrote ${files.length} files`, data: { files } };
    },
  };
}

function reviewer(name, status, log) {
  return {
    name,
    run: async ({ diff }) => {
      appendFileSync(log, `review ${name} ${process.pid}\n`);
      reached(`${name} reviewing`);
      await sleep(5);
      return { status, summary: `${name}: ${diff.split('\n').filter((line) => line.startsWith('+++')).length} files` };
    },
  };
}

if (mode === 'run') {
  const [repository, store, log] = args;
  const job = team({
    task: 'Three files each, then a review.',
    repository,
    agents: [agent('alpha', ['a1.txt', 'a2.txt'], store, log), agent('beta', ['b1.txt', 'b2.txt'], store, log), agent('gamma', ['c1.txt'], store, log)],
    concurrency: 2,
    review: { kind: 'panel', threshold: 1, reviewers: [reviewer('first', 'pass', log), reviewer('second', 'fail', log)] },
  });
  const storage = pointedStorage(store);
  let result = await job.run({ storage, runId: RUN_ID });
  while (result.status === 'waiting') result = await job.resume({ storage, runId: RUN_ID, position: result.waiting[0] });
  await storage.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (mode === 'verify') {
  const [store] = args;
  const storage = createFsStorage({ directory: store });
  const attempts = {};
  const outcomes = {};
  let recovered = 0;
  for await (const event of storage.read(RUN_ID)) {
    const { position } = event.payload;
    if (event.type === 'graph:node-attempt-started') attempts[position] = (attempts[position] ?? 0) + 1;
    if (event.type === 'graph:node-completed' || event.type === 'graph:node-failed') outcomes[position] = (outcomes[position] ?? 0) + 1;
    if (event.type === 'graph:node-completed' && event.payload.result.recovered === true) recovered++;
  }
  await storage.close();
  process.stdout.write(`${JSON.stringify({ attempts, outcomes, recovered })}\n`);
}
