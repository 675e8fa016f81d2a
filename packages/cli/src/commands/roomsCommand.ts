import { dirname, join } from 'node:path';
import { followTeamRooms, projectTeamRooms, roomIndexFileName } from '@roundtable/rooms';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import { CliError } from '../cliError.js';
import type { FormatOptions } from '../optionValues.js';
import { safe } from '../output.js';
import { printableJson } from '../printable.js';
import { Progress } from '../progress.js';
import { withReadProgress } from '../progressStorage.js';
import { requireRunHead } from '../readRun.js';

export interface RoomsOptions extends FormatOptions {
  readonly out?: string;
  readonly follow?: boolean;
}

/** `roundtable rooms <runId> --out <dir> [--follow]`: projectTeamRooms, or followTeamRooms until SIGINT. */
export async function roomsCommand(io: CliIo, runId: string, options: RoomsOptions): Promise<number> {
  const format = options.output ?? 'text';
  if (options.out === undefined) throw new CliError('USAGE', 'rooms needs --out <dir>: where the room files go.');
  const directory = options.out;
  return withStorage(io, options, async (storage) => {
    const head = await requireRunHead(storage, runId);
    const progress = new Progress(io.stderr, 'projecting', head, io.env);
    let projected;
    try {
      projected = await projectTeamRooms({ storage: withReadProgress(storage, progress), runId, directory });
    } finally {
      progress.finish();
    }
    const index = projected.files.length === 0 ? null : join(dirname(projected.files[0]!.path), roomIndexFileName(storage.identity, runId));
    // Paths are the user's --out and hex names, but escaped like all text: --out may hold anything.
    const printFiles = (result: typeof projected) => {
      for (const file of result.files) println(io, `${safe(file.roomId)}\t${safe(file.path)}`);
    };
    const printIndex = (result: typeof projected) => println(io, `revision ${result.revision}; index ${safe(index)}`);
    const print = (result: typeof projected) => {
      if (format === 'json') println(io, printableJson({ revision: result.revision, files: result.files, index }, 2));
      else {
        printFiles(result);
        if (result.files.length === 0) println(io, 'This team has no rooms: nothing written.');
        else printIndex(result);
      }
    };
    if (options.follow !== true) {
      print(projected);
      return ExitCodes.OK;
    }
    if (format === 'text') {
      printFiles(projected);
      io.stderr.write(`Following run ${safe(runId)} (Ctrl-C to stop)…\n`);
    }
    const followed = await followTeamRooms({ storage, runId, directory, signal: io.signal });
    if (format === 'json') print(followed);
    else printIndex(followed);
    return ExitCodes.OK;
  });
}
