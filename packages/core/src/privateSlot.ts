/** Returns the object it is given, so that a subclass's constructor can add a private field to any object. */
class Returning {
  constructor(target: object) {
    return target;
  }
}

/** A slot made by `privateSlot`: a value of type `T` kept on objects, for its holder only. */
export interface PrivateSlot<T> {
  /** Adds the slot to `target`, holding `value`, and returns `target`. Once per object; add it before freezing the object (an engine may refuse it on a frozen one, and throws). */
  readonly add: <Target extends object>(target: Target, value: T) => Target;
  /** The value in `target`'s slot, or undefined when it has none. */
  readonly get: (target: object) => T | undefined;
  /** Replaces the value of a slot added before (also on a frozen object); false when `target` has none. */
  readonly set: (target: object, value: T) => boolean;
  /** Whether `value` is an object with the slot. */
  readonly has: (value: unknown) => boolean;
}

/**
 * A value kept on objects in a private field of a class of its own. Why a private field and not a
 * WeakMap or a symbol: it is invisible to every reflection API, to `JSON.stringify` and to
 * structural equality, cheaper to add and to read than a WeakMap entry, and forgotten with the
 * object; and only the holder of the slot can add or read it, so a package can vouch for objects
 * it built without anyone else being able to forge that.
 */
export function privateSlot<T>(): PrivateSlot<T> {
  class Slot extends Returning {
    #value: T;
    // An explicit constructor: esbuild drops a `new` of a class whose only work is a field
    // initializer as free of side effects, and the slot with it.
    constructor(target: object, value: T) {
      super(target);
      this.#value = value;
    }
    static get(target: object): T | undefined {
      return #value in target ? target.#value : undefined;
    }
    static set(target: object, value: T): boolean {
      if (!(#value in target)) return false;
      target.#value = value;
      return true;
    }
    static has(target: object): boolean {
      return #value in target;
    }
  }
  return {
    add: (target, value) => {
      new Slot(target, value);
      return target;
    },
    get: (target) => Slot.get(target),
    set: (target, value) => Slot.set(target, value),
    has: (value) => typeof value === 'object' && value !== null && Slot.has(value),
  };
}
