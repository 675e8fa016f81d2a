export { conformanceCaseNames, runStorageConformance } from './conformance/runStorageConformance.js';
export type {
  ConformanceCaseResult,
  ConformanceFailure,
  StorageConformanceOptions,
  StorageConformanceResult,
} from './conformance/runStorageConformance.js';
export type { CreateStorage } from './conformance/harness.js';
