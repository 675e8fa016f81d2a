import { hash } from 'node:crypto';

/**
 * The SHA-256 of `bytes` as 64 lowercase hex digits, from `node:crypto`. `@roundtable/core` has
 * a `sha256Hex` of the same contract in plain TypeScript (its pure packages may not import
 * `node:crypto`), but it runs at about 50 MB/s where this runs at about 1 GB/s, and every byte
 * this adapter writes or reads is hashed: a replay of 100 MB of events would spend two seconds
 * in it. This adapter runs on Node.js only, so it uses the native one, in its one-shot form
 * (`hash`, Node 20.12 and later): no Hash object per call, which for a batch of a few hundred
 * bytes costs more than the hashing.
 */
export function sha256Hex(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'hex');
}
