import { privateSlot } from './privateSlot.js';

/** A mark made by `privateMark`: `add` stamps an object (and returns it), `has` asks. */
export interface PrivateMark {
  readonly add: <Target extends object>(target: Target) => Target;
  readonly has: (value: unknown) => boolean;
}

/**
 * A mark on objects: a `privateSlot` holding nothing but its presence (why a private field, see
 * `privateSlot`). Only the holder of the mark can add it, so a package can vouch for objects it
 * built (a value it checked, an event it assembled) without anyone else being able to forge
 * that. Add it before freezing the object.
 */
export function privateMark(): PrivateMark {
  const slot = privateSlot<true>();
  return {
    add: (target) => slot.add(target, true),
    has: slot.has,
  };
}
