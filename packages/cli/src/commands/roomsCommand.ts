import { dirname, join } from 'node:path';
import { followTeamRooms, projectTeamRooms, roomIndexFileName } from '@roundtable/rooms';
import type { CliIo, StoreOptions } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import { CliError } from '../cliError.js';
import { checkFormat, safe } from '../output.js';
import { Progress } from '../progress.js';
import { withReadProgress } from '../progressStorage.js';
import { requireRunHead } from '../readRun.js';

/** `roundtable rooms <runId> --out <dir> [--follow]`: projectTeamRooms, or followTeamRooms until SIGINT. */
export async function roomsCommand(io: CliIo, runId: string, options: StoreOptions & { out?: string; follow?: boolean }): Promise<number> {
  const format = checkFormat(options.output, ['text', 'json']);
  if (options.out === undefined || options.out === '') throw new CliError('USAGE', 'rooms needs --out <dir>: where the room files go.');
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
    const print = (result: typeof projected) => {
      if (format === 'json') println(io, JSON.stringify({ revision: result.revision, files: result.files, index }, null, 2));
      else {
        for (const file of result.files) println(io, `${safe(file.roomId)}\t${file.path}`);
        if (result.files.length === 0) println(io, 'This team has no rooms: nothing written.');
        else println(io, `revision ${result.revision}; index ${index}`);
      }
    };
    if (options.follow !== true) {
      print(projected);
      return ExitCodes.OK;
    }
    if (format === 'text') {
      for (const file of projected.files) println(io, `${safe(file.roomId)}\t${file.path}`);
      io.stderr.write(`Following run ${safe(runId)} (Ctrl-C to stop)…\n`);
    }
    const followed = await followTeamRooms({ storage, runId, directory, signal: io.signal });
    if (format === 'json') print(followed);
    else println(io, `revision ${followed.revision}; index ${index}`);
    return ExitCodes.OK;
  });
}
