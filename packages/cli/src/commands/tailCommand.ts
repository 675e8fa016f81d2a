import type { TeamMessage } from '@roundtable/graph';
import { formatRoomLine } from '@roundtable/rooms';
import { followStream } from '@roundtable/storage';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import { CliError } from '../cliError.js';
import type { FormatOptions } from '../optionValues.js';
import { safe } from '../output.js';
import type { OutputFormat } from '../output.js';
import { escapeUnprintable, printableJson } from '../printable.js';
import { readRun } from '../readRun.js';
import type { RunInspector } from '../runInspector.js';
import { recordError } from '../recordError.js';

const DEFAULT_LINES = 10;

function printMessage(io: CliIo, message: TeamMessage, format: OutputFormat, prefixed: boolean): void {
  if (format === 'jsonl') {
    const { id, roomId, sender, mentions, text, position } = message;
    println(io, printableJson({ roomId, id, sender, mentions, text, position }));
    return;
  }
  // The room file's line, with what room files keep raw (format characters) escaped too.
  const line = escapeUnprintable(formatRoomLine(message).slice(0, -1));
  println(io, prefixed ? `#${safe(message.roomId)} ${line}` : line);
}

/** The messages the inspector folded after the first `count`, in saved order. */
function messagesAfter(inspector: RunInspector, count: number): readonly TeamMessage[] {
  const state = inspector.teamState();
  return state === null ? [] : state.log.slice(count, state.messageCount);
}

export interface TailOptions extends FormatOptions {
  readonly room?: string;
  readonly lines?: number;
  readonly follow?: boolean;
}

/**
 * `roundtable tail <runId> [--room <id>] [-n <count>] [-f]`: room lines as in room files,
 * prefixed with `#<roomId> ` when the team has several rooms and no --room is given; `-f`
 * follows live until SIGINT.
 */
export async function tailCommand(io: CliIo, runId: string, options: TailOptions): Promise<number> {
  const format = options.output ?? 'text';
  const count = options.lines ?? DEFAULT_LINES;
  return withStorage(io, options, async (storage) => {
    const inspector = await readRun(storage, runId);
    const report = inspector.report();
    if (report.problem !== null) throw recordError(report.problem);
    if (report.team === null) throw new CliError('NOT_A_TEAM_RUN', `Run ${JSON.stringify(runId)} holds a ${report.definition?.kind} graph: it has no rooms to tail.`);
    const rooms = report.team.rooms.map((room) => room.id);
    if (options.room !== undefined && !rooms.includes(options.room)) {
      throw new CliError('USAGE', `Run ${JSON.stringify(runId)} has no room ${JSON.stringify(options.room)} (rooms: ${rooms.join(', ') || 'none'}).`);
    }
    const wanted = (message: TeamMessage) => options.room === undefined || message.roomId === options.room;
    const prefixed = options.room === undefined && rooms.length > 1;
    const initial = report.team.messages.filter(wanted);
    for (const message of count === 0 ? [] : initial.slice(-count)) printMessage(io, message, format, prefixed);
    if (options.follow !== true) return ExitCodes.OK;

    let seen = report.team.messages.length;
    for await (const event of followStream(storage, runId, { after: inspector.revision, signal: io.signal })) {
      inspector.apply(event);
      if (inspector.problem !== null) throw recordError(inspector.problem);
      const fresh = messagesAfter(inspector, seen);
      seen += fresh.length;
      for (const message of fresh) if (wanted(message)) printMessage(io, message, format, prefixed);
    }
    return ExitCodes.OK;
  });
}
