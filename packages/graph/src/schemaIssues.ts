import { jsonPointer } from '@roundtable/core';
import { z } from 'zod';
import { graphIssue } from './errors.js';
import type { GraphValidationIssue } from './errors.js';

/** The stable issue a zod issue becomes: a code and a sentence. */
export interface StableIssue {
  readonly code: string;
  readonly message: string;
}

/**
 * How the zod issues at one path become a stable issue: a fixed one, or one chosen from the
 * value found at the rule's path (`undefined` when it is missing) and zod's message.
 */
export type IssueRule = StableIssue | ((value: unknown, message: string) => StableIssue);

/**
 * How a validator names what its schema refuses. `rules` is keyed by path pattern (the path's
 * tokens joined by `/`, array indexes written `*`, '' for the value itself); a pattern listed
 * in `subtrees` also covers every path below it (the inside of a JSON value).
 */
export interface IssueMap {
  readonly rules: ReadonlyMap<string, IssueRule>;
  readonly subtrees?: ReadonlySet<string>;
  /** The code of an unknown field (a strict object's `unrecognized_keys`) and of anything no rule names. */
  readonly code: string;
}

/** A rule of the schema itself (a cross-field check) names its stable code in `params.code`. */
export function stableIssue(code: string, message: string, path: readonly (string | number)[]): z.core.$ZodSuperRefineIssue<z.core.$ZodIssueCustom> {
  return { code: 'custom', message, path: [...path], params: { code } };
}

function pointer(path: readonly PropertyKey[]): string {
  return path.reduce<string>((parent, token) => jsonPointer(parent, typeof token === 'symbol' ? String(token.description) : token), '');
}

function pattern(path: readonly PropertyKey[]): string {
  return path.map((token) => (typeof token === 'number' ? '*' : String(token))).join('/');
}

/** The own data property at `path` inside `root`, or undefined; never calls a getter, never throws. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  try {
    let current = root;
    for (const token of path) {
      if (typeof current !== 'object' || current === null) return undefined;
      const descriptor = Object.getOwnPropertyDescriptor(current, token);
      if (descriptor === undefined || !('value' in descriptor)) return undefined;
      current = descriptor.value as unknown;
    }
    return current;
  } catch {
    return undefined;
  }
}

function ruleFor(map: IssueMap, path: readonly PropertyKey[]): { rule: IssueRule; at: readonly PropertyKey[] } | null {
  for (let length = path.length; length >= 0; length--) {
    const key = pattern(path.slice(0, length));
    const rule = map.rules.get(key);
    if (rule !== undefined && (length === path.length || map.subtrees?.has(key) === true)) return { rule, at: path.slice(0, length) };
  }
  return null;
}

function stable(map: IssueMap, input: unknown, issue: z.core.$ZodIssue): StableIssue {
  const declared: unknown = issue.code === 'custom' ? issue.params?.['code'] : undefined;
  if (typeof declared === 'string') return { code: declared, message: issue.message };
  const found = ruleFor(map, issue.path);
  if (found === null) return { code: map.code, message: issue.message };
  const { rule, at } = found;
  return typeof rule === 'function' ? rule(valueAt(input, at), issue.message) : rule;
}

/** Each path's rank in document order: a field by its place in its object schema (unknown fields last), an item by its index. */
function documentRanks(schema: z.ZodType, path: readonly PropertyKey[]): number[] {
  const ranks: number[] = [];
  let current: z.ZodType | undefined = schema;
  for (const token of path) {
    while (current instanceof z.ZodOptional || current instanceof z.ZodNullable) current = current.unwrap() as z.ZodType;
    if (current instanceof z.ZodObject) {
      const keys: string[] = Object.keys(current.shape);
      const index: number = keys.indexOf(String(token));
      ranks.push(index < 0 ? keys.length : index);
      current = index < 0 ? undefined : (current.shape[String(token)] as z.ZodType);
    } else if (current instanceof z.ZodArray) {
      ranks.push(typeof token === 'number' ? token : 0);
      current = current.element as z.ZodType;
    } else {
      ranks.push(typeof token === 'number' ? token : 0);
      current = undefined;
    }
  }
  return ranks;
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    if (a[index] !== b[index]) return a[index]! - b[index]!;
  }
  return a.length - b.length;
}

/** A cross-field rule of a schema: it reads the whole value, whatever its shape, and adds issues. */
export type CrossFieldRule = (value: unknown, context: z.core.$RefinementCtx) => void;

/**
 * Every problem `schema` finds in `value`, as stable issues with JSON-pointer paths, in
 * document order (the schema's field order, unknown fields last), one per path.
 *
 * zod skips an object's refinements once a field check aborts explicitly (a number that is not
 * an integer, a list that is too long), and refines zod's copy of the value rather than the
 * value itself; so `crossFieldRules` (the ones `schema` itself refines with) also run on their
 * own, on `value`, and the validator still reports every problem in one go.
 */
export function schemaIssues(schema: z.ZodType, value: unknown, map: IssueMap, crossFieldRules: readonly CrossFieldRule[] = []): GraphValidationIssue[] {
  const parsed = schema.safeParse(value);
  const zodIssues = parsed.success ? [] : [...parsed.error.issues];
  for (const rule of crossFieldRules) {
    const checked = z.unknown().superRefine(rule).safeParse(value);
    if (!checked.success) zodIssues.push(...checked.error.issues);
  }
  const located: { path: PropertyKey[]; issue: StableIssue }[] = [];
  for (const issue of zodIssues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) located.push({ path: [...issue.path, key], issue: { code: map.code, message: `Unknown field "${key}".` } });
    } else {
      located.push({ path: issue.path, issue: stable(map, value, issue) });
    }
  }
  const ranked = located.map((entry) => ({ ...entry, ranks: documentRanks(schema, entry.path) }));
  ranked.sort((a, b) => compareRanks(a.ranks, b.ranks));
  const seen = new Set<string>();
  const issues: GraphValidationIssue[] = [];
  for (const { path, issue } of ranked) {
    const where = pointer(path);
    if (seen.has(where)) continue;
    seen.add(where);
    issues.push(graphIssue(issue.code, where, issue.message));
  }
  return issues;
}

