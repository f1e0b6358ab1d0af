import { Type } from 'typebox';

/**
 * Notes a route's schema carries for the OpenAPI document only: Ajv knows each keyword as an
 * annotation (src/server/app.ts), so it changes nothing of what a route accepts, and the document
 * is written from what the note says.
 */

/**
 * A whole number that travels as text (a path or query parameter): routes check the text, since the
 * server never coerces a type; the document gives the integer it holds, which is what a client
 * generated from it should send (`id: 1`, not `id: '1'`). Its value is the integer's range.
 */
export const INTEGER_TEXT = 'x-integer-text';

/**
 * A union branch that lets any value through the schema to code that checks it and names every
 * problem better than one schema failure could (the item validator). The document leaves the branch
 * out: the other branches say what is accepted, and anything else is refused with 400 all the same.
 */
export const CHECKED_BY_CODE = 'x-checked-by-code';

/** The keywords Ajv learns as annotations. */
export const DOCUMENT_NOTES = [INTEGER_TEXT, CHECKED_BY_CODE];

export interface IntegerRange {
  minimum: number;
  maximum: number;
}

/**
 * A whole number in a path or query string. The server never coerces types, so it checks the text
 * (`pattern`: the digits of a number in `range`, nothing else); the document says what the text
 * holds, an integer in `range`, so that clients send a number (INTEGER_TEXT above).
 */
export function IntegerText(pattern: string, range: IntegerRange, options: { description: string }) {
  return Type.String({ pattern, ...options, [INTEGER_TEXT]: range });
}

type Json = Record<string, unknown>;

/**
 * A parameter schema as the document gives it: an integer text becomes the integer it holds (in
 * each branch of a union too: an item is its id or `ext:` and its external_id).
 */
function documentedParameter(schema: Json): Json {
  if (Array.isArray(schema.anyOf))
    return { ...schema, anyOf: (schema.anyOf as Json[]).map(documentedParameter) };
  const range = schema[INTEGER_TEXT] as IntegerRange | undefined;
  if (range === undefined) return schema;
  const { type: _text, pattern: _digits, maxLength: _length, [INTEGER_TEXT]: _range, ...rest } = schema;
  return { ...rest, type: 'integer', minimum: range.minimum, maximum: range.maximum };
}

/** A params or querystring object schema with each integer text documented as an integer. */
export function documentedParameters(schema: unknown): unknown {
  const properties = (schema as { properties?: Record<string, Json> } | undefined)?.properties;
  if (properties === undefined) return schema;
  return {
    ...(schema as Json),
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, documentedParameter(property)]),
    ),
  };
}

/**
 * A schema (and every schema in it) without the union branches code checks instead. A union left with
 * one branch is that branch (with the union's example): its title then names it in the document.
 */
export function withoutCodeCheckedBranches(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutCodeCheckedBranches);
  if (typeof node !== 'object' || node === null) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    copy[key] =
      key === 'example' || key === 'examples'
        ? value
        : key === 'anyOf' && Array.isArray(value)
          ? value
              .filter((branch) => (branch as Json | null)?.[CHECKED_BY_CODE] === undefined)
              .map(withoutCodeCheckedBranches)
          : withoutCodeCheckedBranches(value);
  }
  const branches = copy.anyOf as Json[] | undefined;
  if (branches?.length !== 1) return copy;
  return { ...branches[0], ...(copy.examples === undefined ? {} : { examples: copy.examples }) };
}
