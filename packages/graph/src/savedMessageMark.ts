import { privateMark } from '@roundtable/core';

/**
 * The messages the team reducer saved, stamped with a private mark (core's `privateMark`). A
 * saved message is JSON by construction, two levels high: a frozen plain object of strings (its
 * id and position built from a dispatch position the reducer matched against `teamPosition`,
 * the member id of the definition, and the room id and text of a result it copied and
 * verified) and the verified, deep-frozen mentions array of that result. So `decide`'s input
 * check need not walk it; any other message in a state (one a caller put there by hand) has no
 * mark and is walked. Internal: nothing outside the reducer can stamp.
 */
const savedMessage = privateMark();

/** Stamps a message the reducer is saving (before it is frozen); returns it. */
export const markSavedMessage: <Message extends object>(message: Message) => Message = savedMessage.add;

/** Whether `value` is a message the team reducer saved. */
export const isSavedMessage: (value: unknown) => boolean = savedMessage.has;
