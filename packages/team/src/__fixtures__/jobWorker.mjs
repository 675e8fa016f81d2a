// A child process for the crash tests: runs (or recovers) a three-agent team job with a
// two-reviewer panel on an fs record until it ends, or reports what the record holds. The
// parent kills it with SIGKILL at random moments.
// Usage: jobWorker.mjs run <repository> <store> <log>  |  jobWorker.mjs verify <store>
import { appendFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFsStorage } from '@roundtable/storage-fs';
import { team } from '../../dist/index.js';

const [mode, ...args] = process.argv.slice(2);
const RUN_ID = 'crash-job';
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

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
      for (const file of files) {
        await sleep(5);
        await writeFile(join(workspace, file), `${name} wrote ${file}\n`);
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
  const storage = createFsStorage({ directory: store });
  process.stdout.write('ready\n');
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
