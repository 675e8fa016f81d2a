import { followStream } from '@roundtable/storage';
import type { StoredEvent } from '@roundtable/storage';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import { CliError } from '../cliError.js';
import type { FormatOptions } from '../optionValues.js';
import { safe, safeJson } from '../output.js';
import { printableJson } from '../printable.js';
import { Progress } from '../progress.js';
import { requireRunHead } from '../readRun.js';

export interface EventsOptions extends FormatOptions {
  readonly after?: number;
  readonly follow?: boolean;
}

/** `roundtable events <runId> [--after <revision>] [-f] [-o json|jsonl]`: the raw record. */
export async function eventsCommand(io: CliIo, runId: string, options: EventsOptions): Promise<number> {
  const format = options.output ?? 'text';
  if (format === 'json' && options.follow === true) throw new CliError('USAGE', '-o json prints one array; follow with -o jsonl.');
  const after = options.after ?? 0;
  return withStorage(io, options, async (storage) => {
    // A follow may start before the run's first event.
    const head = options.follow === true ? await storage.head(runId) : await requireRunHead(storage, runId);
    const print = (event: StoredEvent) => {
      if (format === 'jsonl') println(io, printableJson(event));
      else println(io, `${event.revision}  ${safe(event.timestamp)}  ${safe(event.type)}  ${safeJson(event.payload)}`);
    };
    if (format === 'json') {
      const events: StoredEvent[] = [];
      const progress = new Progress(io.stderr, 'reading', Math.max(0, head - after), io.env);
      try {
        for await (const event of storage.read(runId, { after })) {
          events.push(event);
          progress.tick();
        }
      } finally {
        progress.finish();
      }
      println(io, printableJson(events, 2));
      return ExitCodes.OK;
    }
    if (options.follow === true) {
      for await (const event of followStream(storage, runId, { after, signal: io.signal })) print(event);
      return ExitCodes.OK;
    }
    // Lines going to the same terminal would tear the bar: show it only when stdout is redirected.
    const stderr = (io.stdout as { isTTY?: boolean }).isTTY === true ? {} : io.stderr;
    const progress = new Progress({ isTTY: stderr === io.stderr && io.stderr.isTTY, write: (text) => io.stderr.write(text) }, 'reading', Math.max(0, head - after), io.env);
    try {
      for await (const event of storage.read(runId, { after })) {
        progress.tick();
        print(event);
      }
    } finally {
      progress.finish();
    }
    return ExitCodes.OK;
  });
}
