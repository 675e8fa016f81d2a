import type { Json } from '@roundtable/core';
import type { GraphCommand } from './graphCommand.js';
import type { GraphDefinition } from './graphDefinition.js';
import type { GraphValidationIssue } from './errors.js';
import type { GraphEvent } from './graphEvent.js';

/**
 * The pure functions a graph type compiles a definition into. They must not do I/O, read a
 * clock or draw random numbers: the executor replays them and expects the same answers.
 */
export interface GraphTypeFunctions<State> {
  initialState: () => State;
  /** Folds one event into a new state; must not change `state`. Ignores events it does not know. */
  reduce: (state: State, event: GraphEvent) => State;
  /** What to do next: dispatches only, or exactly one terminal command. */
  decide: (state: State) => GraphCommand[];
  /** A JSON description of the compiled graph for people and tools. */
  describe: () => Json;
  /** Returns null when `result` is an acceptable result of node `nodeId`, otherwise one issue. */
  validateNodeResult?: (nodeId: string, result: unknown) => GraphValidationIssue | null;
}

/** A graph type: a named, versioned way to turn a `GraphDefinition` into pure functions. */
export interface GraphType<State> {
  readonly kind: string;
  readonly version: number;
  compile: (definition: GraphDefinition) => GraphTypeFunctions<State>;
}
