import type { Json } from './json.js';
import { utf8ByteLength } from './utf8.js';
import { rememberText, walkJson } from './walkJson.js';

/** A JSON value checked, measured, canonicalised and frozen by one walk. */
export interface FrozenJson {
  /** A deep-frozen copy in canonical key order (deep-frozen parts of the input are shared). */
  readonly value: Json;
  /** Its canonical JSON text (`canonicalJson(value)`). */
  readonly text: string;
  /** UTF-8 bytes of `text`. */
  readonly bytes: number;
}

/**
 * Checks, canonicalises, measures and freezes a value in one walk: what the hot path does once
 * per result so that later stages (storage preflight, secret screening, reducer, input
 * building) reuse it. The copy is remembered as checked JSON, and its canonical text is kept
 * for a short while, so `canonicalJson` of a value holding it does not walk it again. Throws
 * JsonValueError (INVALID_JSON_VALUE) for anything that is not JSON.
 */
export function freezeJson(value: unknown): FrozenJson {
  const chunks: string[] = [];
  const frozen = walkJson(value, { write: (chunk) => chunks.push(chunk), copy: true, sortKeys: true }).value as Json;
  const text = chunks.join('');
  if (typeof frozen === 'object' && frozen !== null) rememberText(frozen, text);
  return { value: frozen, text, bytes: utf8ByteLength(text) };
}
