/**
 * A string check that remembers the last `size` strings it accepted and accepts them again
 * without checking. Why: a string is immutable, so one that passed once passes for good, and the
 * events of a run repeat their stream id, type, correlation id, causation ids and timestamp, so
 * a read or a batch checks each of them about once.
 */
export function recentlyAccepted(size: number, check: (value: string) => boolean): (value: unknown) => value is string {
  // null: an empty slot.
  const recent: (string | null)[] = new Array<string | null>(size).fill(null);
  let next = 0;
  return (value: unknown): value is string => {
    if (typeof value !== 'string') return false;
    for (let slot = 0; slot < size; slot++) if (recent[slot] === value) return true;
    if (!check(value)) return false;
    recent[next] = value;
    next = (next + 1) % size;
    return true;
  };
}
