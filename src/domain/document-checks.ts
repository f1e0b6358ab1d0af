import type { TSchema } from 'typebox';
import { type DocumentProblem, URL_PATTERN, YMD } from './item-documents.js';

/**
 * Checking and normalizing the rich item's documents (item-documents.ts declares their shapes): a
 * value against its schema, and an optional object. A list of lab results has rules of its own on top
 * (analyte-checks.ts).
 */

// A JSON Schema read as the checker reads it.
interface Shape {
  type?: string | string[];
  properties?: Record<string, Shape>;
  items?: Shape;
  anyOf?: Shape[];
  enum?: string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  default?: unknown;
}

/**
 * What is worked out of a schema once, not for each value checked: a menu of thousands of items
 * checks the same few schemas, most often for an absent value.
 */
function memoized<R>(derive: (shape: Shape) => R): (shape: Shape) => R {
  const known = new WeakMap<Shape, R>();
  return (shape) => {
    let result = known.get(shape);
    if (result === undefined) {
      result = derive(shape);
      known.set(shape, result);
    }
    return result;
  };
}

const typesOf: (shape: Shape) => readonly string[] = memoized((shape) =>
  shape.anyOf
    ? shape.anyOf.flatMap(typesOf)
    : Array.isArray(shape.type)
      ? shape.type
      : shape.type
        ? [shape.type]
        : [],
);
const nonNull: (shape: Shape) => Shape = memoized(
  (shape) =>
    shape.anyOf?.find((option) => option.type !== 'null') ?? {
      ...shape,
      type: typesOf(shape).find((type) => type !== 'null'),
    },
);
/** An object schema's fields, listed once. */
const fieldsOf: (shape: Shape) => [string, Shape][] = memoized((shape) =>
  Object.entries(shape.properties ?? {}),
);
/** A pattern compiled once, not for every value it checks. */
const patternOf: (shape: Shape) => RegExp = memoized((shape) => new RegExp(shape.pattern ?? ''));
/** An enum's values by their lower case: a value in any case is found without a scan. */
const enumOf: (shape: Shape) => ReadonlyMap<string, string> = memoized(
  (shape) => new Map((shape.enum ?? []).map((option) => [option.toLowerCase(), option])),
);

/** Records a problem; undefined, for the check to return. */
function refuse(problems: DocumentProblem[], field: string, message: string): undefined {
  problems.push({ field, message });
  return undefined;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a value against its document schema and gives it normalized: an object's keys in the
 * schema's order, a missing key its default (or null when nullable), text trimmed, an enum in its
 * declared case, a missing list []. Undefined after pushing a problem. Text may not hold ';', which a CSV cell uses to
 * separate entries (docs/rich-item.md).
 */
export function checkDocument(
  schema: TSchema,
  value: unknown,
  path: string,
  problems: DocumentProblem[],
): unknown {
  const before = problems.length;
  const checked = checkValue(schema as Shape, value, problems);
  placeProblems(problems, before, path);
  return checked;
}

/**
 * Puts `step` (a field's path, `.field` or `[index]`) before the field of each problem from `from` on.
 * checkValue gives each problem the path from the value it checks (`''` for that value itself), and
 * each object or array around it puts its own step before it: a path is written only for a problem
 * (a menu of rich items checks a few hundred thousand values, and writing each one's path made much
 * of its validation's garbage).
 */
function placeProblems(problems: DocumentProblem[], from: number, step: string): void {
  for (let index = from; index < problems.length; index++) {
    const problem = problems[index]!;
    problem.field = `${step}${problem.field}`;
  }
}

/**
 * checkDocument of one value, its problems' fields the paths inside it (see placeProblems). A value
 * already as the check gives it (an object with the schema's keys in its order, each value unchanged
 * by its check; an array of such entries) is given back as it is rather than copied: what a rich menu
 * sends is mostly so, and the copies were most of its validation's garbage (bench/PROFILE.md, round
 * twenty-eight).
 */
function checkValue(shape: Shape, value: unknown, problems: DocumentProblem[]): unknown {
  const types = typesOf(shape);
  if (value === undefined || value === null) {
    if (types.includes('null')) return null;
    if (shape.default !== undefined) return shape.default;
    if (types.includes('array')) return [];
    return refuse(problems, '', 'is required');
  }
  const own = nonNull(shape);
  switch (typesOf(own)[0]) {
    case 'object':
      return isPlainObject(value)
        ? checkObject(own, value, problems)
        : refuse(problems, '', 'must be an object');
    case 'array': {
      if (!Array.isArray(value)) return refuse(problems, '', 'must be an array');
      if (own.maxItems !== undefined && value.length > own.maxItems)
        return refuse(problems, '', `must have at most ${own.maxItems} entries`);
      const before = problems.length;
      let out: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        const from = problems.length;
        const entry: unknown = value[index];
        const checked = checkValue(own.items!, entry, problems);
        if (problems.length > from) placeProblems(problems, from, `[${index}]`);
        if (out === undefined && checked !== entry) out = value.slice(0, index);
        out?.push(checked);
      }
      return problems.length > before ? undefined : (out ?? value);
    }
    case 'string': {
      if (typeof value !== 'string') return refuse(problems, '', 'must be a string');
      const trimmed = value.trim();
      if (own.enum) {
        const match = enumOf(own).get(trimmed.toLowerCase());
        return match ?? refuse(problems, '', `must be one of ${own.enum.join(', ')}`);
      }
      if (value.includes('\0')) return refuse(problems, '', 'must not contain a NUL character');
      if (trimmed.includes(';'))
        return refuse(problems, '', "must not contain ';' (a CSV cell separates entries with it)");
      if (trimmed === '' && types.includes('null')) return null;
      if (trimmed.length < (own.minLength ?? 0)) return refuse(problems, '', 'must not be empty');
      if (own.maxLength !== undefined && trimmed.length > own.maxLength)
        return refuse(problems, '', `must be at most ${own.maxLength} characters`);
      if (own.pattern && !patternOf(own).test(trimmed))
        return refuse(problems, '', patternMessage(own.pattern));
      return trimmed;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return refuse(problems, '', 'must be a number');
      if (typesOf(own)[0] === 'integer' && !Number.isInteger(value))
        return refuse(problems, '', 'must be a whole number');
      if (value < own.minimum! || value > own.maximum!)
        return refuse(problems, '', `must be between ${own.minimum} and ${own.maximum}`);
      return value;
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : refuse(problems, '', 'must be true or false');
    default:
      throw new Error(`item-documents.ts: no check for schema type ${String(own.type)}`);
  }
}

/** checkValue of an object (`shape` not null): its fields in the schema's order, each checked. */
function checkObject(shape: Shape, value: Record<string, unknown>, problems: DocumentProblem[]): unknown {
  const fields = fieldsOf(shape);
  const before = problems.length;
  // Whether the value has exactly the schema's keys, in its order: then it may be given back as it is.
  let position = 0;
  let inOrder = true;
  for (const key in value) {
    if (!(key in shape.properties!))
      refuse(
        problems,
        '',
        `has an unknown field ${key}; known: ${Object.keys(shape.properties!).join(', ')}`,
      );
    inOrder &&= fields[position]?.[0] === key;
    position++;
  }
  let out: Record<string, unknown> | undefined = inOrder && position === fields.length ? undefined : {};
  for (let index = 0; index < fields.length; index++) {
    const [key, property] = fields[index]!;
    const given = value[key];
    const from = problems.length;
    const checked = checkValue(
      property,
      property.type === 'object' && given === undefined ? {} : given,
      problems,
    );
    if (problems.length > from) placeProblems(problems, from, `.${key}`);
    if (out === undefined && checked !== given) {
      // The first field the check changes: the value is copied after all, with the fields before it.
      out = {};
      for (let earlier = 0; earlier < index; earlier++) out[fields[earlier]![0]] = value[fields[earlier]![0]];
    }
    if (out !== undefined) out[key] = checked;
  }
  return problems.length > before ? undefined : (out ?? value);
}

/**
 * A nullable object whose every field is null or its default says nothing: it is null, as a CSV cell
 * (which leaves those out) reads it back.
 */
export function checkOptionalObject(
  schema: TSchema,
  value: unknown,
  path: string,
  problems: DocumentProblem[],
): unknown {
  const checked = checkDocument(schema, value, path, problems);
  return checked && isEmpty(checked, nonNull(schema as Shape)) ? null : checked;
}

function isEmpty(value: unknown, shape: Shape): boolean {
  if (value === null || value === shape.default) return true;
  if (!isPlainObject(value)) return false;
  // By key, not by Object.entries: a pair per field of every batch and strain of a menu was garbage.
  for (const key in value) {
    if (!isEmpty(value[key], nonNull(shape.properties![key]!))) return false;
  }
  return true;
}

/** What a pattern asks for, in words. */
function patternMessage(pattern: string): string {
  if (pattern === '^[A-Z0-9]{24}$')
    return 'must be a METRC package tag: 24 upper-case letters and digits, such as 1A4060300003B01000012345';
  if (pattern === YMD) return 'must be a day written YYYY-MM-DD';
  if (pattern === URL_PATTERN) return 'must be an http or https URL';
  return `must match ${pattern}`;
}
