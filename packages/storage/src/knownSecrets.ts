import { canonicalJson, jsonPointer } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import type { NewEvent } from './events.js';

/**
 * Where the first known secret occurs in an event, or null. It looks in the event's canonical
 * JSON text (the bytes that would be written, so an escaped form like `\"` or `\n` is caught)
 * and in every decoded string and key (so a secret with a quote or newline is caught too).
 * The returned path never contains the secret itself: keys are reported by position.
 */
export function findKnownSecret(event: NewEvent, secrets: readonly string[]): string | null {
  if (secrets.length === 0) return null;
  const hit = (text: string) => secrets.some((secret) => text.includes(secret));
  const search = (value: Json, path: string): string | null => {
    if (typeof value === 'string') return hit(value) ? path : null;
    if (value === null || typeof value !== 'object') return null;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const found = search(value[i]!, jsonPointer(path, i));
        if (found !== null) return found;
      }
      return null;
    }
    let keyIndex = 0;
    for (const [key, child] of Object.entries(value)) {
      if (hit(key)) return `${path}/(key ${keyIndex})`;
      const found = search(child, jsonPointer(path, key));
      if (found !== null) return found;
      keyIndex++;
    }
    return null;
  };
  const fields = { ...event } as unknown as Json;
  return search(fields, '') ?? (hit(canonicalJson(event)) ? '' : null);
}
