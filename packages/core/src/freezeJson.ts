import type { Json } from './json.js';
import { COPY, MEASURE, SORT_KEYS, WRITE_TEXT, rememberText, stringifyIsPlain, walkJson } from './walkJson.js';

/** A JSON value checked, measured, canonicalised and frozen by one walk. */
export interface FrozenJson {
  /** A deep-frozen copy in canonical key order (deep-frozen parts of the input are shared). */
  readonly value: Json;
  /** Its canonical JSON text (`canonicalJson(value)`), written when first read. */
  readonly text: string;
  /** UTF-8 bytes of `text`. */
  readonly bytes: number;
}

/** Longest text an engine is sure to write (V8's limit is 2^29 - 24 UTF-16 units); a value measured longer has its text written at once, so that freezing it fails as it always did. */
const LONGEST_LAZY_TEXT = 2 ** 28;

/**
 * A frozen value with its bytes, its text written when first read: on the hot path only the
 * bytes are needed at once (the limits), and the text only by a storage that writes texts (or
 * screens them for secrets), so a memory run never writes it. Written from the frozen copy,
 * which cannot change, it is the same whenever it is read.
 */
export class FrozenValue implements FrozenJson {
  readonly value: Json;
  readonly bytes: number;
  #text: string | undefined;
  /** Whether `JSON.stringify` of the copy is its canonical text. */
  readonly #plain: boolean;

  constructor(value: Json, bytes: number, plain: boolean) {
    this.value = value;
    this.bytes = bytes;
    this.#plain = plain;
    this.#text = bytes > LONGEST_LAZY_TEXT ? this.#write() : undefined;
  }

  get text(): string {
    return (this.#text ??= this.#write());
  }

  #write(): string {
    const value = this.value;
    const text = this.#plain ? JSON.stringify(value) : walkJson(value, WRITE_TEXT).text;
    // Kept a short while, so that `canonicalJson` of a value holding this one does not write it again.
    if (typeof value === 'object' && value !== null) rememberText(value, text);
    return text;
  }
}

/**
 * Checks, canonicalises, measures and freezes a value: what the hot path does once per result
 * so that later stages (storage preflight, secret screening, reducer, input building) reuse it.
 * One walk checks the value, counts the UTF-8 bytes of its canonical text and builds the frozen
 * copy with its keys in canonical order; the copy is remembered as checked JSON with its
 * bytes, so freezing it (or a value holding it) again measures nothing. The text is written
 * when first read: `JSON.stringify` of the copy (native, and equal to the canonical text
 * because the copy is ours and in order; a copy JavaScript reorders, with index-like keys such
 * as "10" and "9", has its text written by the walker instead), kept for a short while, so
 * `canonicalJson` of a value holding it does not write it again. Throws JsonValueError
 * (INVALID_JSON_VALUE) for anything that is not JSON.
 */
export function freezeJson(value: unknown): FrozenJson {
  const walked = walkJson(value, COPY | SORT_KEYS | MEASURE);
  return new FrozenValue(walked.value as Json, walked.bytes, walked.ordered && stringifyIsPlain());
}
