import type { Json } from './json.js';
import { CHECK_ONLY, walkJson } from './walkJson.js';

/** Throws `JsonValueError` (INVALID_JSON_VALUE, with a JSON-pointer `path`) unless `value` is a JSON value. */
export function assertJson(value: unknown): asserts value is Json {
  walkJson(value, CHECK_ONLY);
}
