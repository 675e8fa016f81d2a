// The scratch git repository of this package's tests lives in @roundtable/test-utils.
export { scratchRepository } from '@roundtable/test-utils';
export type { ScratchRepository } from '@roundtable/test-utils';
