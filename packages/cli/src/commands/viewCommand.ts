import { randomBytes } from 'node:crypto';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withRunForAppend, withStorage } from '../cliContext.js';
import type { FormatOptions } from '../optionValues.js';
import { startViewer } from '../view/viewerServer.js';
import type { ViewerActions } from '../view/viewerActions.js';

export interface ViewOptions extends FormatOptions {
  readonly port?: number;
  /** Let the page answer pauses, cancel runs and fork them (each POST with the token printed in the URL). */
  readonly actions?: boolean;
}

/** `roundtable view [--port <n>] [--actions]`: serves the viewer on 127.0.0.1 until SIGINT or SIGTERM. */
export async function viewCommand(io: CliIo, options: ViewOptions): Promise<number> {
  return withStorage(io, options, async (storage) => {
    // Each action opens the store for its one append, as `roundtable answer` does, once the run is known to be there.
    const actions: ViewerActions | undefined =
      options.actions === true ? { token: randomBytes(16).toString('hex'), forRun: (runId, work) => withRunForAppend(io, options, runId, work) } : undefined;
    const viewer = await startViewer({ storage, port: options.port ?? 0, ...(actions === undefined ? {} : { actions }) });
    // Closed whatever ends the wait, a closed stdout included: a server left open would keep the process alive.
    try {
      println(io, `Roundtable viewer on ${viewer.url} (Ctrl-C to stop)${actions === undefined ? '' : '; it can answer, cancel and fork: keep the URL to yourself'}`);
      if (!io.signal.aborted) await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }));
    } finally {
      await viewer.close();
    }
    return ExitCodes.OK;
  });
}
