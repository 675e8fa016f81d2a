// Micro-benchmark of the JSON walker (a script, not a test): CPU µs per call of each entry on
// the values of a ping-pong turn. Usage: node scripts/benchWalker.mjs [path/to/core/dist/index.js ...]
// With several builds it interleaves them, round by round, so a shared machine's load hits each alike.
import process from 'node:process';
import { URL, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const paths = process.argv.slice(2);
if (paths.length === 0) paths.push(new URL('../dist/index.js', import.meta.url).pathname);
/** @typedef {typeof import('../src/index.js')} Core */
/** @type {{ path: string, core: Core }[]} */
const builds = [];
for (const path of paths) {
  /** @type {unknown} */
  const loaded = await import(pathToFileURL(resolve(path)).href);
  const core = /** @type {Core} */ (loaded);
  builds.push({ path, core });
}

const POST = 'x'.repeat(90);
/** @param {number} turn */
const result = (turn) => ({ summary: `turn ${turn}`, posts: [{ roomId: 'table', text: `ping ${turn} ${POST}`, mentions: ['pong'] }] });
/** @param {number} turn */
const payload = (turn) => ({ nodeId: 'ping', attempt: turn });

/**
 * @param {Core} core
 * @returns {Record<string, (turn: number) => unknown>}
 */
function cases(core) {
  const frozen = core.freezeJson(result(1)).value;
  /** @param {number} turn */
  const envelope = (turn) => ({ runId: 'run-1', seq: turn, type: 'attempt.completed', at: '2026-12-01T12:00:00.000Z', payload: { nodeId: 'ping', attempt: 1, output: frozen } });
  return {
    'freezeJson(turn result)': (i) => core.freezeJson(result(i)),
    'freezeJson(two-field payload)': (i) => core.freezeJson(payload(i)),
    'canonicalJson(turn result)': (i) => core.canonicalJson(result(i)),
    'canonicalJson(envelope around a frozen result)': (i) => core.canonicalJson(envelope(i)),
    'copyFrozenJson(envelope around a frozen result)': (i) => core.copyFrozenJson(envelope(i)),
    'deepFreezeJson(envelope around a frozen result)': (i) => core.deepFreezeJson(envelope(i)),
    'jsonHeight(turn result)': (i) => core.jsonHeight(result(i)),
    'jsonHeight(frozen result)': () => core.jsonHeight(frozen),
    'JSON.stringify(turn result), for scale': (i) => JSON.stringify(result(i)),
  };
}

const N = 20000;
const ROUNDS = 7;
/** @type {Map<string, number[]>} */
const table = new Map();
for (let round = 0; round < ROUNDS; round++) {
  for (const build of builds) {
    for (const [name, run] of Object.entries(cases(build.core))) {
      for (let i = 0; i < 2000; i++) run(i);
      /** @type {{ gc?: () => void }} */ (globalThis).gc?.();
      const before = process.cpuUsage();
      for (let i = 0; i < N; i++) run(i);
      const used = process.cpuUsage(before);
      const key = `${name}\t${build.path}`;
      const rows = table.get(key) ?? [];
      rows.push((used.user + used.system) / N);
      table.set(key, rows);
    }
  }
}
/** @param {number[]} xs */
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
for (const [key, rows] of table) {
  const [name, path] = key.split('\t');
  process.stdout.write(`${name.padEnd(50)} ${median(rows).toFixed(2).padStart(6)} µs CPU  ${builds.length > 1 ? path : ''}\n`);
}
