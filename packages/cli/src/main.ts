#!/usr/bin/env node
import { closableOutput } from './closableOutput.js';
import { runCli } from './program.js';

/**
 * One Ctrl-C often arrives twice: the terminal signals the whole foreground process group, and a
 * parent such as pnpm forwards what it got to its child as well. A signal this soon after the
 * first is that same request; a later one is a second Ctrl-C, which stops the command at once.
 */
const SAME_REQUEST_MS = 500;

// SIGINT and SIGTERM end a follow (tail -f, events -f, rooms --follow, view) cleanly: the
// command stops reading, closes the store and exits 0. So does a closed stdout.
const controller = new AbortController();
let firstSignalAt: number | null = null;
let finished = false;
const stop = () => {
  const now = performance.now();
  if (firstSignalAt === null) {
    firstSignalAt = now;
    controller.abort();
  } else if (!finished && now - firstSignalAt > SAME_REQUEST_MS) {
    process.exit(130);
  }
};
// The handlers stay until the process exits: a forwarded copy of the first signal that lands
// after the command finished must not kill it by the default action (exit by SIGINT).
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// A closed stderr leaves no one to tell: its errors must not crash the command.
process.stderr.on('error', () => {});

const stdout = closableOutput(process.stdout, () => controller.abort());
process.exitCode = await runCli(process.argv.slice(2), { stdout, stderr: process.stderr, env: process.env, signal: controller.signal });
finished = true;
