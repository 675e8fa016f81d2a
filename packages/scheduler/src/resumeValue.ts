import { JsonValueError, canonicalJson, isRoundtableError } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { thrownMessage } from './safeText.js';

/** The canonical copy of a host's resume value; anything that is not JSON is INVALID_JSON_VALUE. */
export function recordedResumeValue(value: unknown): Json {
  try {
    return JSON.parse(canonicalJson(value)) as Json;
  } catch (error) {
    if (isRoundtableError(error)) throw error;
    throw new JsonValueError('', `The resume value cannot be read: ${thrownMessage(error)}`);
  }
}
