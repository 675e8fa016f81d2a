import { join } from 'node:path';
import type { DemoStorageKind } from './runDemo.js';

/**
 * The `roundtable` commands that inspect a record the demo kept (none for memory storage,
 * whose record is gone when the demo exits).
 */
export function inspectCommands(storage: DemoStorageKind, keptIn: string, runId: string): string[] {
  if (storage === 'memory') return [];
  const store = storage === 'fs' ? `fs:${join(keptIn, 'record')}` : `sqlite:${join(keptIn, 'record.sqlite')}`;
  const quoted = /^[\w@%+=:,./-]+$/.test(store) ? store : `'${store.replaceAll("'", "'\\''")}'`;
  return [
    `pnpm roundtable runs --store ${quoted}`,
    `pnpm roundtable show ${runId} --store ${quoted}`,
    `pnpm roundtable verify --all --store ${quoted}`,
    `pnpm roundtable tail ${runId} --store ${quoted}`,
    `pnpm roundtable view --store ${quoted}`,
  ];
}
