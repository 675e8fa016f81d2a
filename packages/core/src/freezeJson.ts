import type { Json } from './json.js';
import { utf8ByteLength } from './utf8.js';
import { COMPOSE, COPY, SORT_KEYS, WRITE_TEXT, bytesInSlot, recentSlot, rememberText, stringifyIsPlain, textInSlot, walkJson } from './walkJson.js';

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
 * Checks, canonicalises, measures and freezes a value: what the hot path does once per result
 * so that later stages (storage preflight, secret screening, reducer, input building) reuse it.
 * One walk checks the value and builds the frozen copy with its keys in canonical order; the
 * text is then `JSON.stringify` of that copy (native, and equal to the canonical text because
 * the copy is ours and in order; a copy JavaScript reorders, with index-like keys such as "10"
 * and "9", has its text written by the walker instead). The copy is remembered as checked JSON,
 * and its text is kept for a short while, so `canonicalJson` of a value holding it does not
 * write it again. Throws JsonValueError (INVALID_JSON_VALUE) for anything that is not JSON.
 */
export function freezeJson(value: unknown): FrozenJson {
  const walked = walkJson(value, COPY | SORT_KEYS);
  const frozen = walked.value as Json;
  if (typeof frozen !== 'object' || frozen === null) {
    const text = walked.ordered && stringifyIsPlain() ? JSON.stringify(frozen) : walkJson(frozen, WRITE_TEXT).text;
    return { value: frozen, text, bytes: utf8ByteLength(text) };
  }
  // A value frozen a moment ago (a result the storage now writes) is returned as it is, with its text and bytes.
  const slot = recentSlot(frozen);
  if (slot >= 0) return { value: frozen, text: textInSlot(slot), bytes: bytesInSlot(slot) };
  // A copy that shares verified parts (an outcome payload around the result frozen a moment ago)
  // has its text written around their kept texts rather than all over again.
  const plain = walked.ordered && stringifyIsPlain();
  const text = plain && !walked.reused ? JSON.stringify(frozen) : walkJson(frozen, plain ? WRITE_TEXT | COMPOSE : WRITE_TEXT).text;
  const bytes = utf8ByteLength(text);
  rememberText(frozen, text, bytes);
  return { value: frozen, text, bytes };
}
