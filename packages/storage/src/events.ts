import type { Json } from '@roundtable/core';

/** An event as a writer hands it to `append`. */
export interface NewEvent {
  readonly eventId: string;
  readonly type: string;
  readonly version: number;
  readonly timestamp: string;
  readonly correlationId: string;
  readonly causationId: string | null;
  readonly payload: Json;
}

/** An event as storage returns it: the new event plus its place in the stream. */
export interface StoredEvent extends NewEvent {
  readonly envelopeVersion: 1;
  readonly streamId: string;
  readonly revision: number;
}

/** The only envelope version this package writes and reads. */
export const ENVELOPE_VERSION = 1;

export const NEW_EVENT_KEYS = ['eventId', 'type', 'version', 'timestamp', 'correlationId', 'causationId', 'payload'] as const;
export const STORED_EVENT_KEYS = ['envelopeVersion', 'streamId', 'revision', ...NEW_EVENT_KEYS] as const;
