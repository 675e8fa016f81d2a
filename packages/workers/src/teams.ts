import { createHash } from 'node:crypto';
import type { CompiledGraph } from '@roundtable/graph';
import type { NodeBinding } from '@roundtable/scheduler';
import { WorkersError } from './workersErrors.js';

/**
 * A compiled graph of any state type. `CompiledGraph<State>` uses its state both ways
 * (reduce takes and returns it), so no single state type accepts every team; the workers only
 * hand the graph back to the executor, which is generic over it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCompiledGraph = CompiledGraph<any>;

/** A team a worker can run: the compiled graph and a binding for every member. */
export interface WorkerTeam {
  readonly graph: AnyCompiledGraph;
  readonly nodes: Readonly<Record<string, NodeBinding>>;
}

/** A known team with the queue its jobs go to. */
export interface ResolvedTeam extends WorkerTeam {
  readonly digest: string;
  readonly queue: string;
}

/**
 * The pg-boss queue of one team definition in one storage schema and namespace: a run's jobs go
 * to the queue of its stored definition digest, so only workers that know the team (and work on
 * the same runs) claim them.
 */
export function queueName(digest: string, schema: string, namespace: string): string {
  const hex = createHash('sha256').update(JSON.stringify([schema, namespace, digest]), 'utf8').digest('hex');
  return `roundtable_${hex.slice(0, 32)}`;
}

function badOption(message: string): WorkersError {
  return new WorkersError('INVALID_WORKERS_OPTIONS', message);
}

/** Checks `teams` (keys: a definition digest, or `<definition id>@<definitionVersion>`) and indexes them by queue. */
export function resolveTeams(teams: unknown, schema: string, namespace: string): Map<string, ResolvedTeam> {
  if (typeof teams !== 'object' || teams === null || Array.isArray(teams)) throw badOption('teams must map a definition digest (or "<id>@<version>") to { graph, nodes }.');
  const byQueue = new Map<string, ResolvedTeam>();
  for (const [key, team] of Object.entries(teams as Record<string, unknown>)) {
    const { graph, nodes } = (team ?? {}) as Partial<WorkerTeam>;
    if (typeof graph !== 'object' || graph === null || typeof graph.definition?.digest !== 'string') throw badOption(`teams[${JSON.stringify(key)}].graph must be a compiled graph.`);
    if (typeof nodes !== 'object' || nodes === null) throw badOption(`teams[${JSON.stringify(key)}].nodes must map every member to a binding.`);
    const { digest, value } = graph.definition;
    if (key !== digest && key !== `${value.id}@${value.definitionVersion}`) {
      throw badOption(`teams key ${JSON.stringify(key)} names neither the graph's digest (${digest}) nor "${value.id}@${value.definitionVersion}".`);
    }
    const queue = queueName(digest, schema, namespace);
    if (byQueue.has(queue)) throw badOption(`teams lists the definition ${digest} twice.`);
    byQueue.set(queue, { graph, nodes, digest, queue });
  }
  if (byQueue.size === 0) throw badOption('teams must name at least one team.');
  return byQueue;
}
