/** Returns the object it is given, so that a subclass's constructor can add a private field to any object. */
class Returning {
  constructor(target: object) {
    return target;
  }
}

/** A mark made by `privateMark`: `add` stamps an object (and returns it), `has` asks. */
export interface PrivateMark {
  readonly add: <Target extends object>(target: Target) => Target;
  readonly has: (value: unknown) => boolean;
}

/**
 * A mark on objects kept in a private field of a class of its own: invisible to every reflection
 * API, to `JSON.stringify` and to structural equality, cheaper to add and to ask about than a
 * WeakSet entry, and forgotten with the object. Only the holder of the mark can add it, so a
 * package can vouch for objects it built (a value it checked, an event it assembled) without
 * anyone else being able to forge that. Add it before freezing the object.
 */
export function privateMark(): PrivateMark {
  class Marked extends Returning {
    readonly #marked: boolean;
    // An explicit constructor: esbuild drops a `new` of a class whose only work is a field
    // initializer as free of side effects, and the mark with it.
    constructor(target: object) {
      super(target);
      this.#marked = true;
    }
    static has(value: object): boolean {
      return #marked in value;
    }
  }
  return {
    add: (target) => {
      new Marked(target);
      return target;
    },
    has: (value) => typeof value === 'object' && value !== null && Marked.has(value),
  };
}
