/** A bigint column read as text, as a safe non-negative integer; null for anything else. */
export function revisionFromText(value: unknown): number | null {
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]{0,15})$/.test(value)) return null;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : null;
}
