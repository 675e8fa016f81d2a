/** Appends one reference token to a JSON pointer (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function jsonPointer(parent: string, token: string | number): string {
  return `${parent}/${String(token).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
