// @roundtable/runtime: one import for the public API of core, graph, the storage port, the
// memory adapter, the scheduler, rooms and contracts. Durable adapters are separate installs.
//
// The facade re-exports each package's public entry whole, values and types: it is, by
// definition, everything those packages export, so a name added to one of them is in the facade
// the moment it is exported (a hand-kept list here had fallen about 50 names behind). Only public
// entries are re-exported, never a package's internals, and TypeScript refuses a name two of them
// export differently (TS2308), so nothing is shadowed in silence. `src/index.test.ts` checks every
// name of every package against the facade.
/* eslint-disable no-restricted-syntax -- a facade of whole packages: see above */
export * from '@roundtable/core';
export * from '@roundtable/graph';
export * from '@roundtable/storage';
export * from '@roundtable/storage-memory';
export * from '@roundtable/scheduler';
export * from '@roundtable/rooms';
export * from '@roundtable/contracts';
