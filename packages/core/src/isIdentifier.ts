/**
 * An identifier is a non-empty string equal to its trimmed form with no character in
 * U+0000–U+001F or U+007F. Identifiers name graphs, nodes, edges, rooms and events.
 */
export function isIdentifier(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value !== value.trim()) return false;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit <= 0x1f || unit === 0x7f) return false;
  }
  return true;
}
