// `pnpm bench`: every workload in its own child process (so peak RSS is the workload's own),
// repeated, summarised as median / min / max. JSON on stdout, a readable table on stderr.
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ADAPTERS, benchFanOut, benchPingPong, benchStorage } from './workloads.js';
import type { AdapterName } from './workloads.js';

interface Job {
  readonly workload: 'graph-fold' | 'ping-pong' | 'fan-out' | 'storage-append' | 'ai-sdk-overhead' | 'follow' | 'postgres-ping-pong' | 'workers' | 'workers-ping-pong' | 'memory' | 'operator';
  /** `postgres` for the operator workload on PostgreSQL; `none` where no adapter is chosen. */
  readonly adapter: AdapterName | 'none' | 'postgres';
  /** Who holds the run the operator answers (the operator workload): `executor.serve()` or a worker pool. */
  readonly holder?: 'serve' | 'workers';
  readonly size: number;
  readonly batchSize?: number;
  /** Worker processes (the workers workload). */
  readonly workers?: number;
  readonly repeats: number;
}

type Numbers = { [key: string]: number | Numbers | null };

// Each workload's module is imported by the child that runs it, so a child holds only the
// modules (and native addons) its workload needs: its peak RSS is the workload's own.
async function runChild(job: Job): Promise<Numbers> {
  switch (job.workload) {
    case 'graph-fold':
      return { ...(await (await import('./graphFold.js')).benchGraphFold(job.size)) };
    case 'ping-pong':
      return { ...(await benchPingPong(job.adapter as AdapterName, job.size)) };
    case 'fan-out':
      return { ...(await benchFanOut(job.adapter as AdapterName, job.size)) };
    case 'storage-append':
      return { ...(await benchStorage(job.adapter as AdapterName, job.size, job.batchSize ?? 1)) };
    case 'ai-sdk-overhead':
      return { ...(await (await import('./aiSdkOverhead.js')).benchAiSdkOverhead(job.size)) };
    case 'follow':
      return { ...(await (await import('./followWorkload.js')).benchFollow(job.adapter as AdapterName, job.size, job.batchSize)) };
    case 'postgres-ping-pong':
      return { ...(await (await import('./postgresWorkloads.js')).benchPostgresPingPong(job.size)) };
    case 'workers':
      return { ...(await (await import('./workersWorkload.js')).benchWorkers(job.workers ?? 1, job.size)) };
    case 'workers-ping-pong':
      return { ...(await (await import('./workersPingPong.js')).benchWorkersPingPong(job.size)) };
    case 'operator':
      return { ...(await (await import('./operatorWorkload.js')).benchOperator(job.holder ?? 'serve', job.adapter as AdapterName | 'postgres', job.size)) };
    case 'memory':
      // The ping-pong run alone, in memory (`none`: a store that checks appends and keeps nothing).
      return { ...(await (await import('./memoryWorkload.js')).benchMemory(job.adapter === 'none' ? 'discard' : 'memory', job.size)) } as unknown as Numbers;
  }
}

function spawnJob(job: Job): Promise<Numbers> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Numbers) : reject(new Error(`${JSON.stringify(job)} exited with ${code}`))));
  });
}

/** Median, min and max of every numeric leaf across runs. */
function summarize(runs: readonly Numbers[]): Numbers {
  const first = runs[0]!;
  const out: Numbers = {};
  for (const [key, value] of Object.entries(first)) {
    if (typeof value === 'number') {
      const values = runs.map((run) => run[key] as number).sort((a, b) => a - b);
      out[key] = { median: values[Math.floor(values.length / 2)]!, min: values[0]!, max: values.at(-1)! };
    } else if (value !== null) {
      out[key] = summarize(runs.map((run) => run[key] as Numbers));
    } else out[key] = null;
  }
  return out;
}

function plan(quick: boolean): Job[] {
  const jobs: Job[] = [];
  const sizes = quick ? [1_000] : [1_000, 10_000, 100_000];
  const repeatsFor = (size: number) => (quick ? 3 : size >= 100_000 ? 1 : size >= 10_000 ? 3 : 5);
  for (const size of quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]) jobs.push({ workload: 'graph-fold', adapter: 'none', size, repeats: quick ? 3 : 5 });
  for (const adapter of ADAPTERS) {
    for (const events of quick ? [1_000] : [1_000, 100_000]) {
      for (const batchSize of [1, 100]) jobs.push({ workload: 'storage-append', adapter, size: events, batchSize, repeats: quick || events >= 100_000 ? 1 : 3 });
    }
  }
  for (const adapter of ADAPTERS) for (const size of sizes) jobs.push({ workload: 'ping-pong', adapter, size, repeats: repeatsFor(size) });
  for (const adapter of ADAPTERS) jobs.push({ workload: 'fan-out', adapter, size: quick ? 1_000 : 20_000, repeats: quick ? 1 : 3 });
  for (const size of quick ? [1_000] : [1_000, 10_000]) jobs.push({ workload: 'ai-sdk-overhead', adapter: 'memory', size, repeats: quick ? 3 : 5 });
  for (const adapter of ADAPTERS) jobs.push({ workload: 'follow', adapter, size: quick ? 10_000 : 100_000, batchSize: 10, repeats: 1 });
  for (const size of [1_000, 10_000]) jobs.push({ workload: 'postgres-ping-pong', adapter: 'none', size, repeats: quick ? 1 : 3 });
  for (const adapter of ['memory', 'none'] as const) jobs.push({ workload: 'memory', adapter, size: quick ? 10_000 : 100_000, repeats: 1 });
  for (const size of [1_000, 10_000]) jobs.push({ workload: 'workers-ping-pong', adapter: 'none', size, repeats: 1 });
  for (const workers of [1, 2, 4]) jobs.push({ workload: 'workers', adapter: 'none', size: quick ? 24 : 64, workers, repeats: quick ? 1 : 3 });
  // From an answer's append to the answered attempt's start (SPEC 20), per round; target p50 ≤ 20 ms.
  for (const adapter of ['fs', 'sqlite-full', 'postgres'] as const) jobs.push({ workload: 'operator', adapter, holder: 'serve', size: quick ? 10 : 40, repeats: 1 });
  jobs.push({ workload: 'operator', adapter: 'postgres', holder: 'workers', size: quick ? 10 : 40, repeats: 1 });
  return jobs;
}

function leaf(summary: Numbers, ...path: string[]): number | null {
  let node: Numbers | number | null = summary;
  for (const key of path) {
    if (node === null || typeof node === 'number') return null;
    node = node[key] ?? null;
  }
  return typeof node === 'number' ? node : null;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2).filter((arg) => arg !== '--'), options: { quick: { type: 'boolean' }, child: { type: 'string' }, only: { type: 'string' } } });
  if (values.child !== undefined) {
    const report = await runChild(JSON.parse(values.child) as Job);
    process.stdout.write(JSON.stringify({ ...report, peakRssMiB: process.resourceUsage().maxRSS / 1024 }));
    return;
  }
  const quick = values.quick === true;
  const jobs = plan(quick).filter((job) => values.only === undefined || job.workload === values.only);
  const results = [];
  for (const job of jobs) {
    const runs: Numbers[] = [];
    for (let i = 0; i < job.repeats; i++) runs.push(await spawnJob(job));
    const summary = summarize(runs);
    results.push({ ...job, summary });
    const perUnit = leaf(summary, 'usPerTurn', 'median') ?? leaf(summary, 'usPerEvent', 'median') ?? leaf(summary, 'lastWindow', 'usPerAppend', 'median');
    process.stderr.write(
      `${job.workload.padEnd(17)} ${job.adapter.padEnd(14)} ${String(job.size).padStart(7)}${job.batchSize ? ` ×${job.batchSize}` : ''}${job.workers ? ` ${job.workers}w` : ''}${job.holder ? ` ${job.holder}` : ''}`.padEnd(48) +
        ` ${perUnit === null ? '' : `${perUnit.toFixed(1)} µs/unit`}${job.workload === 'workers' ? `${leaf(summary, 'runsPerSecond', 'median')?.toFixed(1)} runs/s, pick-up p50 ${leaf(summary, 'pickUpMs', 'p50', 'median')} ms p95 ${leaf(summary, 'pickUpMs', 'p95', 'median')} ms` : ''}${job.workload === 'operator' ? `answer → attempt start p50 ${leaf(summary, 'answerToStartMs', 'p50', 'median')?.toFixed(1)} ms p95 ${leaf(summary, 'answerToStartMs', 'p95', 'median')?.toFixed(1)} ms` : ''}  rss ${leaf(summary, 'peakRssMiB', 'median')?.toFixed(0)} MiB\n`,
    );
  }
  // Flatness: µs per unit at the largest size over the smallest, per workload and adapter.
  const flatness = [];
  for (const workload of ['graph-fold', 'ping-pong', 'storage-append', 'postgres-ping-pong', 'workers-ping-pong'] as const) {
    for (const adapter of ['none', ...ADAPTERS]) {
      for (const batchSize of workload === 'storage-append' ? [1, 100] : [undefined]) {
        const rows = results.filter((row) => row.workload === workload && row.adapter === adapter && row.batchSize === batchSize);
        if (rows.length < 2) continue;
        const metric = workload === 'graph-fold' ? ['usPerEvent'] : workload === 'storage-append' ? null : ['usPerTurn'];
        const small = rows[0]!;
        const large = rows.at(-1)!;
        const ratio =
          metric === null
            ? (leaf(large.summary, 'lastWindow', 'usPerAppend', 'median') ?? 0) / (leaf(large.summary, 'firstWindow', 'usPerAppend', 'median') ?? 1)
            : (leaf(large.summary, ...metric, 'median') ?? 0) / (leaf(small.summary, ...metric, 'median') ?? 1);
        flatness.push({ workload, adapter, batchSize: batchSize ?? null, from: small.size, to: large.size, ratio: Number(ratio.toFixed(2)) });
      }
    }
  }
  for (const row of flatness) process.stderr.write(`flatness ${row.workload} ${row.adapter}${row.batchSize ? ` ×${row.batchSize}` : ''}: ${row.ratio} (${row.to} vs ${row.from})\n`);
  const report = {
    generatedAt: new Date().toISOString(),
    machine: { node: process.version, platform: process.platform, arch: process.arch, cpus: cpus().length, model: cpus()[0]?.model ?? null },
    quick,
    results,
    flatness,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
