#!/usr/bin/env node
import { closableOutput } from './closableOutput.js';
import { runCli } from './program.js';
import { stopOnSignal } from './stopOnSignal.js';

// SIGINT and SIGTERM end a follow (tail -f, events -f, rooms --follow, view) cleanly: the
// command stops reading, closes the store and exits 0. So does a closed stdout.
const controller = new AbortController();
const signals = stopOnSignal(
  () => controller.abort(),
  () => process.exit(130),
);
// The handlers stay until the process exits: a forwarded copy of the first signal that lands
// after the command finished must not kill it by the default action (exit by SIGINT).
process.on('SIGINT', signals.onSignal);
process.on('SIGTERM', signals.onSignal);
// A closed stderr leaves no one to tell: its errors must not crash the command.
process.stderr.on('error', () => {});

const stdout = closableOutput(process.stdout, () => controller.abort());
process.exitCode = await runCli(process.argv.slice(2), { stdout, stderr: process.stderr, env: process.env, signal: controller.signal });
signals.finish();
