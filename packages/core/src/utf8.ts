const encoder = new TextEncoder();
// eslint-disable-next-line no-control-regex -- U+0000 starts the ASCII range
const ASCII = /^[\u0000-\u007f]*$/;

/** The UTF-8 bytes of a string. */
export function utf8Encode(value: string): Uint8Array {
  return encoder.encode(value);
}

/** The number of UTF-8 bytes of a string, without encoding it. Lone surrogates count as U+FFFD. */
export function utf8ByteLength(value: string): number {
  // Most text is ASCII: one byte per code unit, found by one native scan.
  if (ASCII.test(value)) return value.length;
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
