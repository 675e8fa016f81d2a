/** A room of a team definition: its id and its member ids. (Type aliases, not interfaces, so they are assignable to `Json`.) */
export type SeedRoom = { readonly id: string; readonly members: string[] };

/** One member of `teamDefinition`: role and brief default to `<id>-role` and `<id>-brief`. */
export type TeamMemberOptions = { readonly id: string; readonly role?: string; readonly brief?: string; readonly initialTurn?: boolean };

export type TeamDefinitionOptions = {
  /** Default `team`. */
  readonly id?: string;
  /** Default `task`. */
  readonly task?: string;
  readonly members: readonly TeamMemberOptions[];
  /** Default one room `all` with every member; `null` for a team without communication. */
  readonly rooms?: SeedRoom[] | null;
  /** Default 10. */
  readonly globalConcurrency?: number;
  /** Default 5. */
  readonly maxTurnsPerMember?: number;
  /** Default 10. */
  readonly tailMessages?: number;
};

/** A team conversation's definition as plain data (`compileGraph(teamGraphType, …)` compiles it). */
export type TeamDefinitionData = {
  id: string;
  definitionVersion: 1;
  data: { task: string; globalConcurrency: number; maxTurnsPerMember: number; communication?: { rooms: SeedRoom[]; tailMessages: number } };
  nodes: { id: string; data: { role: string; brief: string; initialTurn?: boolean } }[];
  edges: [];
};

/** A team of the given members, in one room `all` unless `rooms` says otherwise. */
export function teamDefinition(options: TeamDefinitionOptions): TeamDefinitionData {
  const rooms = options.rooms === undefined ? [{ id: 'all', members: options.members.map((member) => member.id) }] : options.rooms;
  return {
    id: options.id ?? 'team',
    definitionVersion: 1,
    data: {
      task: options.task ?? 'task',
      globalConcurrency: options.globalConcurrency ?? 10,
      maxTurnsPerMember: options.maxTurnsPerMember ?? 5,
      ...(rooms === null ? {} : { communication: { rooms, tailMessages: options.tailMessages ?? 10 } }),
    },
    nodes: options.members.map((member) => ({
      id: member.id,
      data: { role: member.role ?? `${member.id}-role`, brief: member.brief ?? `${member.id}-brief`, ...(member.initialTurn === undefined ? {} : { initialTurn: member.initialTurn }) },
    })),
    edges: [],
  };
}
