import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import type { FormatOptions } from '../optionValues.js';
import { startViewer } from '../view/viewerServer.js';

export interface ViewOptions extends FormatOptions {
  readonly port?: number;
}

/** `roundtable view [--port <n>]`: serves the viewer on 127.0.0.1 until SIGINT or SIGTERM. */
export async function viewCommand(io: CliIo, options: ViewOptions): Promise<number> {
  return withStorage(io, options, async (storage) => {
    const viewer = await startViewer({ storage, port: options.port ?? 0 });
    // Closed whatever ends the wait, a closed stdout included: a server left open would keep the process alive.
    try {
      println(io, `Roundtable viewer on ${viewer.url} (Ctrl-C to stop)`);
      if (!io.signal.aborted) await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }));
    } finally {
      await viewer.close();
    }
    return ExitCodes.OK;
  });
}
