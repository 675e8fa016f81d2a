import { digest, isIdentifier, isJson, jsonPointer } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { z } from 'zod';
import { ResultContractError } from './resultContractError.js';
import type { ResultContractIssue } from './resultContractError.js';

/** What a run can record about the contract a result was checked against. */
export interface ResultContractRecord {
  readonly name: string;
  readonly version: number;
  /** `digest` of the contract's JSON Schema. */
  readonly schemaDigest: string;
}

export interface ResultContract<T> {
  readonly record: ResultContractRecord;
  readonly jsonSchema: Json;
  /** Returns the parsed value, or throws ResultContractError RESULT_INVALID with every issue. */
  validate(value: unknown): T;
}

export interface ResultContractDefinition<Schema extends z.ZodType> {
  readonly name: string;
  readonly version: number;
  readonly schema: Schema;
}

/** Turns zod's issues into JSON-pointer issues. */
export function contractIssues(issues: readonly z.core.$ZodIssue[]): ResultContractIssue[] {
  return issues.map((issue) => ({
    code: issue.code,
    path: issue.path.reduce<string>((path, key) => jsonPointer(path, typeof key === 'symbol' ? String(key.description) : key), ''),
    message: issue.message,
  }));
}

export function refuse(name: string, issues: readonly ResultContractIssue[]): ResultContractError {
  const first = issues[0];
  const where = first && first.path !== '' ? ` at ${first.path}` : '';
  return new ResultContractError('RESULT_INVALID', `The result does not satisfy contract "${name}"${where}: ${first?.message ?? 'invalid'}`, issues);
}

/**
 * A result contract from a zod schema: its JSON Schema (zod 4's own export), the digest of
 * that schema, and `validate`, which returns zod's parsed value (defaults applied, unknown
 * keys handled as the schema says) or throws RESULT_INVALID.
 */
export function defineResultContract<Schema extends z.ZodType>(definition: ResultContractDefinition<Schema>): ResultContract<z.output<Schema>> {
  const { name, version, schema } = definition;
  if (!isIdentifier(name)) throw new ResultContractError('INVALID_CONTRACT', 'A contract name must be an identifier.');
  if (!Number.isSafeInteger(version) || version < 1) throw new ResultContractError('INVALID_CONTRACT', 'A contract version must be a positive safe integer.');
  if (!(schema instanceof z.ZodType)) throw new ResultContractError('INVALID_CONTRACT', 'A contract schema must be a zod schema.');
  let jsonSchema: unknown;
  try {
    // zod decorates its output with non-enumerable bookkeeping; keep only the JSON text's value.
    jsonSchema = JSON.parse(JSON.stringify(z.toJSONSchema(schema, { unrepresentable: 'throw' })));
  } catch (error) {
    throw new ResultContractError('INVALID_CONTRACT', `Contract "${name}" has a schema with no JSON Schema form: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isJson(jsonSchema)) throw new ResultContractError('INVALID_CONTRACT', `Contract "${name}" produced a JSON Schema that is not JSON.`);
  const record = Object.freeze({ name, version, schemaDigest: digest(jsonSchema) });
  return Object.freeze({
    record,
    jsonSchema,
    validate(value: unknown): z.output<Schema> {
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw refuse(name, contractIssues(parsed.error.issues));
      return parsed.data;
    },
  });
}
