import { isStreamId } from '@roundtable/storage';
import { CliError } from './cliError.js';
import type { StoreOptions } from './cliContext.js';
import type { OutputFormat } from './output.js';

// The parsers of every value the CLI takes from a user: commander calls them while it parses
// argv, and the viewer for its URLs, so a bad value is USAGE (exit 2, or a 400) before any work.

const STREAM_ID_RULE = 'letters, digits, ".", "_" and "-", starting with a letter or digit, at most 128';

/** A value as an error message shows it: quoted, and cut short when it is long. */
function shown(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

/** A non-negative safe integer in decimal digits (`--after`, `-n`, the viewer's `?after=`). */
export function parseNonNegativeInteger(value: string, option: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new CliError('USAGE', `${option} must be a non-negative integer, not ${shown(value)}.`);
  return Number(value);
}

/** A positive safe integer in decimal digits (a revision: `--paused-at`, `--at`). */
export function parsePositiveInteger(value: string, option: string): number {
  const number = parseNonNegativeInteger(value, option);
  if (number === 0) throw new CliError('USAGE', `${option} must be a revision (1 or more), not ${shown(value)}.`);
  return number;
}

/** A TCP port to listen on: an integer 0–65535 (0 picks a free one); `written` is what the user wrote. */
export function checkPort(port: number, option = 'port', written = String(port)): number {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CliError('USAGE', `${option} must be an integer from 0 to 65535, not ${shown(written)}.`);
  return port;
}

export function parsePort(value: string): number {
  return checkPort(/^\d+$/.test(value) ? Number(value) : Number.NaN, '--port', value);
}

/** A namespace, by the storage's rule for it. */
export function parseNamespace(value: string): string {
  if (!isStreamId(value)) throw new CliError('USAGE', `--namespace ${shown(value)} is not a namespace: ${STREAM_ID_RULE} characters.`);
  return value;
}

/** A run id, by the storage's rule for a stream id: no run can have another. */
export function parseRunId(value: string): string {
  if (!isStreamId(value)) throw new CliError('USAGE', `${shown(value)} is not a run id: ${STREAM_ID_RULE} characters.`);
  return value;
}

/** `parseRunId` for a variadic argument: commander passes what it collected so far. */
export function collectRunIds(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), parseRunId(value)];
}

/** A directory to write to (`--out`): not empty, no NUL (no file system takes one). */
export function parseOutDirectory(value: string): string {
  if (value === '' || value.includes('\u0000')) throw new CliError('USAGE', `--out must name a directory, not ${shown(value)}.`);
  return value;
}

/** The options every command takes, as the parsers leave them. */
export interface FormatOptions extends StoreOptions {
  readonly output?: OutputFormat;
}

/** The parser of `-o` for a command that prints `allowed`. */
export function formatParser(allowed: readonly OutputFormat[]): (value: string) => OutputFormat {
  return (value) => {
    if (!allowed.includes(value as OutputFormat)) throw new CliError('USAGE', `-o must be one of ${allowed.join(', ')}, not ${shown(value)}.`);
    return value as OutputFormat;
  };
}
