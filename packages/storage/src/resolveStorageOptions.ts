import { isWellFormedString } from '@roundtable/core';
import { StorageError } from './errors.js';
import type { StorageLimits, StorageOptions } from './storage.js';
import { DEFAULT_NAMESPACE, DEFAULT_STORAGE_LIMITS } from './storage.js';
import { isStreamId } from './validation.js';

/** Storage options with defaults applied and checked; what adapters keep. */
export interface StorageConfig {
  readonly namespace: string;
  readonly limits: StorageLimits;
  readonly knownSecrets: readonly string[];
  /** Opened with `readOnly: true`: `prepareAppend` refuses every append (STORAGE_READ_ONLY). */
  readonly readOnly: boolean;
}

function badOption(message: string): StorageError {
  return new StorageError('INVALID_STORAGE_OPTIONS', message);
}

function positiveLimit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw badOption(`limits.${name} must be a positive safe integer.`);
  return value;
}

/** The fewest characters (code points, after trimming) a known secret may have: a shorter one matches nearly everything. */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/**
 * Checks `knownSecrets` (SPEC 11.2): an array of well-formed strings (a lone surrogate could
 * never be found in text that is written as UTF-8) each at least 8 characters long after
 * trimming. The refusal names an entry by its index only, never by its value.
 */
function checkKnownSecrets(value: unknown): readonly string[] {
  if (!Array.isArray(value)) throw badOption('knownSecrets must be an array of strings.');
  const secrets: string[] = [];
  for (let index = 0; index < value.length; index++) {
    const secret: unknown = value[index];
    if (typeof secret !== 'string') throw badOption(`knownSecrets[${index}] must be a string.`);
    if (!isWellFormedString(secret)) throw badOption(`knownSecrets[${index}] contains a lone surrogate.`);
    if ([...secret.trim()].length < MIN_KNOWN_SECRET_LENGTH) {
      throw badOption(`knownSecrets[${index}] is shorter than ${MIN_KNOWN_SECRET_LENGTH} characters after trimming; so short a string matches nearly everything.`);
    }
    secrets.push(secret);
  }
  return Object.freeze(secrets);
}

/** Applies defaults to the options every adapter takes and checks them. */
export function resolveStorageOptions(options: StorageOptions = {}): StorageConfig {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  if (!isStreamId(namespace)) throw badOption(`namespace ${JSON.stringify(namespace)} must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$.`);
  const knownSecrets = checkKnownSecrets(options.knownSecrets ?? []);
  const readOnly: unknown = options.readOnly ?? false;
  if (typeof readOnly !== 'boolean') throw badOption('readOnly must be true or false.');
  return Object.freeze({
    namespace,
    limits: Object.freeze({
      maxEventPayloadBytes: positiveLimit(options.limits?.maxEventPayloadBytes, DEFAULT_STORAGE_LIMITS.maxEventPayloadBytes, 'maxEventPayloadBytes'),
      maxAppendBatchBytes: positiveLimit(options.limits?.maxAppendBatchBytes, DEFAULT_STORAGE_LIMITS.maxAppendBatchBytes, 'maxAppendBatchBytes'),
    }),
    knownSecrets,
    readOnly,
  });
}

