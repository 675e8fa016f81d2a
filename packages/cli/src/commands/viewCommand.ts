import type { CliIo, StoreOptions } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import { parseNonNegativeInteger } from '../output.js';
import { startViewer } from '../view/viewerServer.js';

/** `roundtable view [--port <n>]`: serves the viewer on 127.0.0.1 until SIGINT or SIGTERM. */
export async function viewCommand(io: CliIo, options: StoreOptions & { port?: string }): Promise<number> {
  const port = options.port === undefined ? 0 : parseNonNegativeInteger(options.port, '--port');
  return withStorage(io, options, async (storage) => {
    const viewer = await startViewer({ storage, port });
    println(io, `Roundtable viewer on ${viewer.url} (Ctrl-C to stop)`);
    if (!io.signal.aborted) await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }));
    await viewer.close();
    return ExitCodes.OK;
  });
}
