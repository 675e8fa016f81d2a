/** Returns the object it is given, so that `SavedMessage`'s constructor can stamp a private field on any object (core's verified mark does the same). */
class Returning {
  constructor(target: object) {
    return target;
  }
}

/**
 * The messages the team reducer saved, stamped in a private field (invisible to every
 * reflection API, `JSON.stringify` and structural equality; a few nanoseconds to add and to
 * read). A saved message is JSON by construction, two levels high: a frozen plain object of
 * strings (its id and position built from a dispatch position the reducer matched against
 * `teamPosition`, the member id of the definition, and the room id and text of a result it
 * copied and verified) and the verified, deep-frozen mentions array of that result. So
 * `decide`'s input check need not walk it; any other message in a state (one a caller put
 * there by hand) has no stamp and is walked. Internal: nothing outside the reducer can stamp.
 */
class SavedMessage extends Returning {
  readonly #saved: boolean;

  // An explicit constructor: esbuild drops a `new` of a class whose only work is a field
  // initializer as free of side effects, and the stamp with it.
  constructor(target: object) {
    super(target);
    this.#saved = true;
  }

  static has(value: object): boolean {
    return #saved in value;
  }
}

/** Stamps a message the reducer is saving (before it is frozen); returns it. */
export function markSavedMessage<Message extends object>(message: Message): Message {
  new SavedMessage(message);
  return message;
}

/** Whether `value` is a message the team reducer saved. */
export function isSavedMessage(value: unknown): boolean {
  return typeof value === 'object' && value !== null && SavedMessage.has(value);
}
