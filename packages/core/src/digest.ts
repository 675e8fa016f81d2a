import { canonicalJson } from './canonicalJson.js';
import { sha256Hex } from './sha256Hex.js';
import { utf8Encode } from './utf8.js';

/** A digest as `digest` writes it: `sha256:` and 64 lowercase hex digits. */
export type Digest = `sha256:${string}`;

/** `"sha256:" + hex` of the UTF-8 bytes of `canonicalJson(value)`. Throws for non-JSON. */
export function digest(value: unknown): Digest {
  return `sha256:${sha256Hex(utf8Encode(canonicalJson(value)))}`;
}
