/** Any UTF-16 surrogate: a string without one is well-formed, which most strings are. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** `String.prototype.isWellFormed` where the runtime has it (Node 20 does), else undefined. */
const native = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** True when the string has no lone UTF-16 surrogate, i.e. it encodes to UTF-8 exactly. */
export function isWellFormedString(value: string): boolean {
  return native !== undefined ? native.call(value) : portableIsWellFormed(value);
}

/** `isWellFormedString` in plain JavaScript, for a runtime without `String.prototype.isWellFormed` (exported for its test). */
export function portableIsWellFormed(value: string): boolean {
  if (!SURROGATE.test(value)) return true;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit >= 0xdc00) return false;
    const next = value.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
    i++;
  }
  return true;
}
