import { teamGraphType } from '@roundtable/graph';
import type { GraphType } from '@roundtable/graph';
import { teamJobGraphType } from '@roundtable/team';

/**
 * The graph types the CLI and the viewer can fold strictly, by kind. A stored run of another
 * kind is still listed and shown from its generic `graph:` events, but its status cannot be
 * decided and `verify` reports UNKNOWN_GRAPH_KIND. Adding a type is one line here.
 */
export const knownGraphTypes: ReadonlyMap<string, GraphType<unknown>> = new Map<string, GraphType<unknown>>([
  [teamGraphType.kind, teamGraphType as GraphType<unknown>],
  [teamJobGraphType.kind, teamJobGraphType as GraphType<unknown>],
]);

/** The same types as a list, for the scheduler's actions (`answerPause`, `cancelRun`). */
export const knownGraphTypeList: readonly GraphType<unknown>[] = [...knownGraphTypes.values()];
