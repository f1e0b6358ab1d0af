import { type Static, type TSchema, Type } from 'typebox';

/**
 * `type: [T, "null"]` rather than `anyOf`: the same meaning in JSON Schema and OpenAPI 3.1,
 * and fast-json-stringify serializes it without trying each branch.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, ...rest } = schema as unknown as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}
