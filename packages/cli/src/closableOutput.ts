import { CliError } from './cliError.js';

/** The part of process.stdout the CLI uses. */
export interface OutputStream {
  readonly isTTY?: boolean;
  readonly errored?: Error | null;
  write(text: string): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * `stream` as the CLI writes to it. Once its reader is gone (EPIPE: `| head -1` closed the
 * pipe) or it failed otherwise, every write throws CliError OUTPUT_CLOSED, which ends the
 * command with exit code 0 and nothing on stderr, and `onClosed` runs once (main ends follows and
 * the viewer with it). A pipe or file fails on the write itself; a socket a moment later, as an
 * `error` event, which this listens for so it never crashes the process.
 */
export function closableOutput(stream: OutputStream, onClosed: () => void): { readonly isTTY: boolean; write(text: string): boolean } {
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClosed();
  };
  stream.on('error', close);
  const outputClosed = () => new CliError('OUTPUT_CLOSED', 'stdout was closed.');
  return {
    isTTY: stream.isTTY === true,
    write(text) {
      if (closed) throw outputClosed();
      stream.write(text);
      if (stream.errored !== null && stream.errored !== undefined) {
        close();
        throw outputClosed();
      }
      return true;
    },
  };
}
