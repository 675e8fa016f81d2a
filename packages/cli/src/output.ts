import { escapeRoomField } from '@roundtable/rooms';
import { escapeUnprintable } from './printable.js';

export type OutputFormat = 'text' | 'json' | 'jsonl';

/**
 * A string from the record, made safe for a terminal: the room-file escapes (one line, no
 * control character), then every other unprintable code point (format characters such as bidi
 * controls, lone surrogates) as `\uXXXX`.
 */
export function safe(value: unknown): string {
  return escapeUnprintable(escapeRoomField(typeof value === 'string' ? value : String(value)));
}

/** JSON for a terminal line: JSON.stringify, then escaped as `safe` escapes a string. */
export function safeJson(value: unknown): string {
  return safe(JSON.stringify(value) ?? 'undefined');
}

/** Left-aligned columns, two spaces apart; cells are already safe. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
