import { join } from 'node:path';
import type { DemoStorageKind } from './runDemo.js';

/**
 * The `roundtable` commands that inspect a record the demo kept: none for memory storage, whose
 * record is gone when the demo exits, nor for PostgreSQL unless `postgresStore` (the kept
 * database's URL, without its password) says where the record outlived the demo.
 */
export function inspectCommands(storage: DemoStorageKind, keptIn: string, runId: string, postgresStore: string | null = null): string[] {
  if (storage === 'memory' || (storage === 'postgres' && postgresStore === null)) return [];
  const store = storage === 'postgres' ? postgresStore! : storage === 'fs' ? `fs:${join(keptIn, 'record')}` : `sqlite:${join(keptIn, 'record.sqlite')}`;
  const quoted = /^[\w@%+=:,./-]+$/.test(store) ? store : `'${store.replaceAll("'", "'\\''")}'`;
  return [
    `pnpm roundtable runs --store ${quoted}`,
    `pnpm roundtable show ${runId} --store ${quoted}`,
    `pnpm roundtable verify --all --store ${quoted}`,
    `pnpm roundtable tail ${runId} --store ${quoted}`,
    `pnpm roundtable view --store ${quoted}`,
  ];
}
