import type { Json } from './json.js';
import { jsonHeight } from './jsonHeight.js';

/** True when `value` is a JSON value: `assertJson` would accept it. */
export function isJson(value: unknown): value is Json {
  return jsonHeight(value) >= 0;
}
