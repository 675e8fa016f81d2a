import { canonicalJson, jsonPointer } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { StorageError } from './errors.js';
import type { NewEvent } from './events.js';

/**
 * Where the first known secret occurs in an event, or null. It looks in every decoded string
 * and key (so a secret with a quote or newline is caught even though the written bytes hold it
 * escaped) and in the event's canonical JSON text (the bytes that would be written, so a secret
 * given in its escaped form, like `a\"b`, or spanning fields is caught too). Pass `text` when the
 * canonical text is already at hand, to save serialising the event again.
 *
 * The returned path never contains a secret: keys that contain one are reported by position,
 * and a path whose key names happen to spell a secret (`/ab/cd` for `ab/cd`) falls back to
 * positions throughout.
 */
export function findKnownSecret(event: NewEvent, secrets: readonly string[], text?: string): string | null {
  if (secrets.length === 0) return null;
  const hit = (candidate: string) => secrets.some((secret) => candidate.includes(secret));
  const found = (named: string, positional: string) => (hit(named) ? positional : named);
  const search = (value: Json, named: string, positional: string): string | null => {
    if (typeof value === 'string') return hit(value) ? found(named, positional) : null;
    if (value === null || typeof value !== 'object') return null;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const inner = search(value[i]!, jsonPointer(named, i), jsonPointer(positional, i));
        if (inner !== null) return inner;
      }
      return null;
    }
    let keyIndex = 0;
    for (const [key, child] of Object.entries(value)) {
      const keyPath = `(key ${keyIndex})`;
      if (hit(key)) return `${found(named, positional)}/${keyPath}`;
      const inner = search(child, jsonPointer(named, key), jsonPointer(positional, keyPath));
      if (inner !== null) return inner;
      keyIndex++;
    }
    return null;
  };
  const fields = { ...event } as unknown as Json;
  return search(fields, '', '') ?? (hit(text ?? canonicalJson(event)) ? '' : null);
}

const REDACTED = '[known secret]';

function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    result = result.split(secret).join(REDACTED);
    // Messages quote values with JSON.stringify, which writes a newline or quote escaped.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) result = result.split(escaped).join(REDACTED);
  }
  return result;
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [redactText(key, secrets), redactValue(child, secrets)]));
  }
  return value;
}

/**
 * The same error with every known secret (raw or JSON-escaped) cut out of its message and
 * details, and its cause dropped. Preflight errors quote the caller's input (a stream id, a key
 * in a JSON path), and error messages end up in logs, which is exactly where a known secret must
 * not go. Errors that contain no secret are returned as they are.
 */
export function withoutKnownSecrets(error: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0 || !(error instanceof StorageError)) return error;
  const details = error.details === undefined ? undefined : (redactValue(error.details, secrets) as Record<string, unknown>);
  const message = redactText(error.message, secrets);
  if (message === error.message && JSON.stringify(details) === JSON.stringify(error.details)) return error;
  const leaks = (text: string) => redactText(text, secrets) !== text;
  // Replacing one secret can, in theory, spell another; then say nothing specific at all.
  if (leaks(message) || leaks(JSON.stringify(details) ?? '')) {
    return new StorageError(error.code, 'The append was refused; details are withheld because they would contain a known secret.');
  }
  return new StorageError(error.code, message, details === undefined ? {} : { details });
}
