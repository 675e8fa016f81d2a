import { canonicalJson, sha256Hex, utf8Encode } from '@roundtable/core';
import type { StorageIdentity } from '@roundtable/storage';

/**
 * `roundtable-room-<hex>.txt`, where `<hex>` is the SHA-256 of the canonical JSON of
 * `[adapter, location, namespace, runId, roomId]`: room ids never reach a path, and rooms of
 * different runs, namespaces or stores never share a file.
 */
export function roomFileName(identity: StorageIdentity, runId: string, roomId: string): string {
  const key = canonicalJson([identity.adapter, identity.location, identity.namespace, runId, roomId]);
  return `roundtable-room-${sha256Hex(utf8Encode(key))}.txt`;
}

/**
 * `roundtable-run-<hex>.json`, where `<hex>` is the SHA-256 of the canonical JSON of
 * `[adapter, location, namespace, runId]`: the run's room index, which names each room's file.
 */
export function roomIndexFileName(identity: StorageIdentity, runId: string): string {
  const key = canonicalJson([identity.adapter, identity.location, identity.namespace, runId]);
  return `roundtable-run-${sha256Hex(utf8Encode(key))}.json`;
}
