import { readFileSync } from 'node:fs';
import type { Json } from '@roundtable/core';
import { answerPause } from '@roundtable/scheduler';
import type { CliIo } from '../cliContext.js';
import { ExitCodes, println, withRunForAppend } from '../cliContext.js';
import { CliError } from '../cliError.js';
import { knownGraphTypeList } from '../graphTypes.js';
import type { FormatOptions } from '../optionValues.js';
import { safe } from '../output.js';
import { printableJson } from '../printable.js';

export interface AnswerOptions extends FormatOptions {
  readonly value?: Json;
  readonly valueFile?: string;
  readonly approve?: boolean;
  readonly reject?: boolean;
  readonly note?: string;
  readonly pausedAt?: number;
}

/** `--value`'s text as JSON (USAGE, at parse time, when it is not). */
export function parseJsonValue(text: string, option = '--value'): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw new CliError('USAGE', `${option} must be JSON (${error instanceof Error ? error.message : String(error)}); quote a string as '"text"'.`);
  }
}

/** The one answer the options give: exactly one of --value, --value-file, --approve and --reject. */
export function answerValue(options: AnswerOptions): Json {
  const given = [options.value !== undefined, options.valueFile !== undefined, options.approve === true, options.reject === true].filter(Boolean).length;
  if (given !== 1) throw new CliError('USAGE', 'Give the answer once: exactly one of --value <json>, --value-file <file>, --approve and --reject.');
  if (options.note !== undefined && options.approve !== true && options.reject !== true) {
    throw new CliError('USAGE', '--note goes with --approve or --reject (it is recorded as the answer\'s note); put a note inside a --value instead.');
  }
  if (options.value !== undefined) return options.value;
  if (options.valueFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.valueFile, 'utf8');
    } catch (error) {
      throw new CliError('USAGE', `--value-file ${JSON.stringify(options.valueFile)} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    return parseJsonValue(text, `--value-file ${JSON.stringify(options.valueFile)}`);
  }
  return { approved: options.approve === true, ...(options.note === undefined ? {} : { note: options.note }) };
}

/**
 * `roundtable answer <runId> <position>`: appends the answer to the position's open pause
 * (`answerPause`, bound to `--paused-at` when given) and prints the revision written. Exit 1
 * when the record refuses it (STALE_ANSWER, PROTOCOL, RUN_ENDED), with the code and message.
 */
export async function answerCommand(io: CliIo, runId: string, position: string, options: AnswerOptions): Promise<number> {
  const value = answerValue(options);
  const format = options.output ?? 'text';
  return withRunForAppend(io, options, runId, async (storage) => {
    const written = await answerPause({ storage, runId, position, value, types: knownGraphTypeList, ...(options.pausedAt === undefined ? {} : { pausedAt: options.pausedAt }) });
    if (format === 'json') println(io, printableJson({ runId, position, revision: written.revision, pausedAt: written.pausedAt }, 2));
    else println(io, `Answered ${safe(position)} of run ${safe(runId)} (the pause at revision ${written.pausedAt}): wrote revision ${written.revision}.`);
    return ExitCodes.OK;
  });
}
