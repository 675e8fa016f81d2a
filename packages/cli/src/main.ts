#!/usr/bin/env node
import { closableOutput } from './closableOutput.js';
import { runCli } from './program.js';

// SIGINT and SIGTERM end a follow (tail -f, events -f, rooms --follow, view) cleanly: the
// command stops reading, closes the store and exits 0. So does a closed stdout.
const controller = new AbortController();
const stop = () => {
  if (controller.signal.aborted) process.exit(130);
  controller.abort();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// A closed stderr leaves no one to tell: its errors must not crash the command.
process.stderr.on('error', () => {});

const stdout = closableOutput(process.stdout, () => controller.abort());
const code = await runCli(process.argv.slice(2), { stdout, stderr: process.stderr, env: process.env, signal: controller.signal });
process.exitCode = code;
process.off('SIGINT', stop);
process.off('SIGTERM', stop);
