import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withStorage } from '../cliContext.js';
import type { FormatOptions } from '../optionValues.js';
import { safe, table } from '../output.js';
import { printableJson } from '../printable.js';
import { openPauses } from '../openPauses.js';
import type { OpenPause } from '../openPauses.js';
import { readRun } from '../readRun.js';
import { pauseLines } from './showCommand.js';
import type { RunReport } from '../runInspector.js';

/** One run as `runs -o json` lists it. */
export interface RunListing {
  readonly runId: string;
  readonly definitionId: string | null;
  readonly kind: string | null;
  readonly status: RunReport['status'];
  readonly turns: number;
  readonly revision: number;
  readonly lastEventAt: string | null;
  /** Each open pause with its revision, request and the `roundtable answer` command for it. */
  readonly openPauses: readonly OpenPause[];
}

export function runListing(report: RunReport, store: string | null = null): RunListing {
  return {
    runId: report.runId,
    definitionId: report.definition?.id ?? null,
    kind: report.definition?.kind ?? null,
    status: report.status,
    turns: report.turns,
    revision: report.revision,
    lastEventAt: report.lastEventAt,
    openPauses: openPauses(report.runId, report.attempts, report.status, store),
  };
}

/** What `runs` and `verify --all` print for a namespace without runs (a typo in --namespace looks the same). */
export function noRuns(namespace: string): string {
  return `No runs in namespace ${JSON.stringify(namespace)}.`;
}

/** `roundtable runs`: every run of the namespace with its status. Exit 1 when a run is unreadable. */
export async function runsCommand(io: CliIo, options: FormatOptions): Promise<number> {
  const format = options.output ?? 'text';
  return withStorage(io, options, async (storage) => {
    const listings: RunListing[] = [];
    for await (const { streamId } of storage.streams()) listings.push(runListing((await readRun(storage, streamId)).report(), options.store ?? null));
    if (format === 'json') println(io, printableJson({ runs: listings }, 2));
    else if (listings.length === 0) println(io, noRuns(storage.identity.namespace));
    else {
      const rows = listings.map((run) => [
        safe(run.runId),
        safe(run.definitionId ?? '-'),
        safe(run.status.text),
        String(run.turns),
        safe(run.lastEventAt ?? '-'),
      ]);
      println(io, table(['RUN', 'TEAM', 'STATUS', 'TURNS', 'LAST EVENT'], rows));
      const lines = pauseLines(listings.flatMap((run) => run.openPauses.map((pause) => ({ ...pause, runId: run.runId }))));
      if (lines.length > 0) println(io, lines.join('\n'));
    }
    return listings.some((run) => run.status.kind === 'unreadable') ? ExitCodes.NOT_WELL : ExitCodes.OK;
  });
}
