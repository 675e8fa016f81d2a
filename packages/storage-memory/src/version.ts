import packageJson from '../package.json' with { type: 'json' };

export const MEMORY_STORAGE_ADAPTER = '@roundtable/storage-memory';
/** This package's version, as `identity.version` reports it. */
export const MEMORY_STORAGE_VERSION: string = packageJson.version;
