#!/usr/bin/env node
import { runCli } from './program.js';

// SIGINT and SIGTERM end a follow (tail -f, events -f, rooms --follow, view) cleanly: the
// command stops reading, closes the store and exits 0.
const controller = new AbortController();
const stop = () => {
  if (controller.signal.aborted) process.exit(130);
  controller.abort();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: controller.signal });
process.exitCode = code;
process.off('SIGINT', stop);
process.off('SIGTERM', stop);
