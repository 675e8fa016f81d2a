import { Command, CommanderError } from 'commander';
import { isRoundtableError } from '@roundtable/core';
import packageJson from '../package.json' with { type: 'json' };
import type { CliIo } from './cliContext.js';
import { ExitCodes } from './cliContext.js';
import { isCliError } from './cliError.js';
import { answerCommand, parseJsonValue } from './commands/answerCommand.js';
import type { AnswerOptions } from './commands/answerCommand.js';
import { cancelCommand, parseCancelReason } from './commands/cancelCommand.js';
import type { CancelOptions } from './commands/cancelCommand.js';
import { diffCommand } from './commands/diffCommand.js';
import { eventsCommand } from './commands/eventsCommand.js';
import type { EventsOptions } from './commands/eventsCommand.js';
import { forkCommand } from './commands/forkCommand.js';
import type { ForkOptions } from './commands/forkCommand.js';
import { roomsCommand } from './commands/roomsCommand.js';
import type { RoomsOptions } from './commands/roomsCommand.js';
import { runsCommand } from './commands/runsCommand.js';
import { showCommand } from './commands/showCommand.js';
import { tailCommand } from './commands/tailCommand.js';
import type { TailOptions } from './commands/tailCommand.js';
import { verifyCommand } from './commands/verifyCommand.js';
import type { VerifyOptions } from './commands/verifyCommand.js';
import { viewCommand } from './commands/viewCommand.js';
import type { ViewOptions } from './commands/viewCommand.js';
import type { FormatOptions } from './optionValues.js';
import { collectRunIds, formatParser, parseNamespace, parseNonNegativeInteger, parseOutDirectory, parsePositiveInteger, parsePort, parseRunId } from './optionValues.js';
import { safe } from './output.js';
import type { OutputFormat } from './output.js';

/**
 * Codes that say the record itself is not well, or refused an append (exit 1), rather than that
 * it could not be used (exit 2).
 */
const RECORD_CODES = new Set([
  'CORRUPT_EVENT_STREAM',
  'INVALID_EVENT',
  'UNSUPPORTED_ENVELOPE_VERSION',
  'STORED_GRAPH_MISMATCH',
  'EMPTY_DECISION',
  // An append the record refused (answer, cancel, fork): nothing was written.
  'STALE_ANSWER',
  'PROTOCOL',
  'RUN_ENDED',
  'REVISION_CONFLICT',
  'INVALID_FORK_POINT',
  'RUN_EXISTS',
  'FORK_TOO_DEEP',
]);

function addStoreOptions(command: Command, formats: readonly OutputFormat[]): Command {
  return command
    .option('--store <url>', 'fs:DIR or a directory, sqlite:FILE or a .sqlite/.db file, postgres://… (default: $ROUNDTABLE_STORE)')
    .option('--namespace <name>', 'the storage namespace (default: "default")', parseNamespace)
    .option('-o, --output <format>', `output format: ${formats.join(', ')}`, formatParser(formats));
}

/** Commander's own usage errors (`error: unknown option '--x'` and a hint), as one typed line. */
function usageLine(text: string): string {
  const lines = text.replace(/^error: /, '').trimEnd().split('\n');
  return `roundtable: USAGE: ${lines.map(safe).join(' ')}\n`;
}

/** The exit code for an error a command threw, after printing it as `roundtable: CODE: message` (never a stack). */
function reportError(io: CliIo, error: unknown): number {
  if (isRoundtableError(error)) {
    io.stderr.write(`roundtable: ${safe(error.code)}: ${safe(error.message)}\n`);
    return RECORD_CODES.has(error.code) ? ExitCodes.NOT_WELL : ExitCodes.USAGE;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`roundtable: UNEXPECTED: ${safe(message)}\n`);
  return ExitCodes.USAGE;
}

function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('roundtable')
    .description('Inspect, verify, project, follow and view stored Roundtable runs, and act on them: answer, cancel and fork are the only commands that append.')
    .version(packageJson.version)
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text), outputError: (text, write) => write(usageLine(text)) })
    .showHelpAfterError('(run roundtable --help for usage)');
  const run = <A extends unknown[]>(action: (...args: A) => Promise<number>) =>
    async (...args: A): Promise<void> => {
      setExit(await action(...args));
    };
  const runIdArgument = (command: Command) => command.argument('<runId>', 'the run', parseRunId);

  addStoreOptions(program.command('runs').description('list every run: id, team, status, turns, last event time'), ['text', 'json']).action(
    run((options: FormatOptions) => runsCommand(io, options)),
  );
  addStoreOptions(runIdArgument(program.command('show')).description('one run as a timeline of attempts, then its outcome'), ['text', 'json']).action(
    run((runId: string, options: FormatOptions) => showCommand(io, runId, options)),
  );
  addStoreOptions(
    program
      .command('verify')
      .argument('[runIds...]', 'the runs', collectRunIds)
      .option('--all', 'verify every run of the namespace')
      .description('strictly fold each record and check it for damage; exit 1 on any problem'),
    ['text', 'json'],
  ).action(run((runIds: string[] | undefined, options: VerifyOptions) => verifyCommand(io, runIds ?? [], options)));
  addStoreOptions(
    runIdArgument(program.command('rooms'))
      .option('--out <dir>', 'where the room files go', parseOutDirectory)
      .option('--follow', 'keep appending new lines until Ctrl-C')
      .description('write the run\'s room files (projectTeamRooms), or follow them (followTeamRooms)'),
    ['text', 'json'],
  ).action(run((runId: string, options: RoomsOptions) => roomsCommand(io, runId, options)));
  addStoreOptions(
    runIdArgument(program.command('tail'))
      .option('--room <id>', 'only this room')
      .option('-n, --lines <count>', 'how many of the last lines to print first (default 10)', (value: string) => parseNonNegativeInteger(value, '-n'))
      .option('-f, --follow', 'keep printing new lines until Ctrl-C')
      .description('room lines as in room files (prefixed #<room> when there are several rooms)'),
    ['text', 'jsonl'],
  ).action(run((runId: string, options: TailOptions) => tailCommand(io, runId, options)));
  addStoreOptions(
    runIdArgument(program.command('events'))
      .option('--after <revision>', 'only events after this revision', (value: string) => parseNonNegativeInteger(value, '--after'))
      .option('-f, --follow', 'keep printing new events until Ctrl-C')
      .description('the raw record'),
    ['text', 'json', 'jsonl'],
  ).action(run((runId: string, options: EventsOptions) => eventsCommand(io, runId, options)));
  addStoreOptions(
    runIdArgument(program.command('answer'))
      .argument('<position>', 'the paused position (as show lists it)')
      .option('--value <json>', 'the answer, as JSON', (value: string) => parseJsonValue(value))
      .option('--value-file <file>', 'the answer, as JSON in a file')
      .option('--approve', 'answer { approved: true, note? }')
      .option('--reject', 'answer { approved: false, note? }')
      .option('--note <text>', 'the note of --approve or --reject')
      .option('--paused-at <revision>', 'the revision of the pause being answered (as show printed it): another pause is STALE_ANSWER', (value: string) => parsePositiveInteger(value, '--paused-at'))
      .description('answer a paused position; appends one event and prints its revision (exit 1 when refused)'),
    ['text', 'json'],
  ).action(run((runId: string, position: string, options: AnswerOptions) => answerCommand(io, runId, position, options)));
  addStoreOptions(
    runIdArgument(program.command('cancel'))
      .requiredOption('--reason <text>', 'why, for the record (1 to 1,024 characters)', parseCancelReason)
      .description('cancel a run: appends one event and prints its revision; attempts in flight stop (exit 1 when it has ended)'),
    ['text', 'json'],
  ).action(run((runId: string, options: CancelOptions) => cancelCommand(io, runId, options)));
  addStoreOptions(
    runIdArgument(program.command('fork'))
      .requiredOption('--at <revision>', 'the run revision to go on from (as show and events print it)', (value: string) => parsePositiveInteger(value, '--at'))
      .requiredOption('--to <runId>', 'the new run\'s id (a run with no events)', parseRunId)
      .description('fork a run at a revision into a new run: appends one event and prints its revision (exit 1 when refused)'),
    ['text', 'json'],
  ).action(run((runId: string, options: ForkOptions) => forkCommand(io, runId, options)));
  addStoreOptions(
    program
      .command('diff')
      .argument('<runA>', 'a run', parseRunId)
      .argument('<runB>', 'the run to compare it with (a fork of it, or another fork of its parent)', parseRunId)
      .description('the first revision at which two runs differ, then each member\'s outcomes after it side by side'),
    ['text', 'json'],
  ).action(run((runA: string, runB: string, options: FormatOptions) => diffCommand(io, runA, runB, options)));
  addStoreOptions(
    program
      .command('view')
      .option('--port <n>', 'the port on 127.0.0.1 (default: a random free port)', parsePort)
      .option('--actions', 'let the page answer pauses and cancel runs (each POST carries the token in the printed URL)')
      .description('serve the run viewer on 127.0.0.1 until Ctrl-C'),
    ['text'],
  ).action(run((options: ViewOptions) => viewCommand(io, options)));
  return program;
}

/**
 * Runs the `roundtable` command line with `argv` (without the node and script names) and
 * resolves to its exit code: 0 success, 1 the thing checked is not well (a failed run, a
 * failed verification, a damaged record), 2 bad usage or an unreadable store. Errors are
 * printed to `io.stderr` as `roundtable: CODE: message`, never with a stack.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = ExitCodes.OK;
  const program = buildProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; every other commander error is bad usage, already printed.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCodes.OK;
      if (error.code === 'commander.help') {
        // `roundtable help` asked for it; `roundtable` alone printed it for want of a command.
        if (error.exitCode === 0) return ExitCodes.OK;
        io.stderr.write('roundtable: USAGE: Name a command (see the list above).\n');
      }
      return ExitCodes.USAGE;
    }
    // A closed stdout (`| head -1`) is a normal end: nothing more to say, and no one to say it to.
    if (isCliError(error, 'OUTPUT_CLOSED')) return ExitCodes.OK;
    return reportError(io, error);
  }
}
