import type { TSchema } from 'typebox';
import { type Analyte, AnalyteSchema, type DocumentProblem, URL_PATTERN, YMD } from './item-documents.js';
import {
  aliasKey,
  CANNABINOID_ALIASES,
  CANNABINOID_CODES,
  type PotencyUnit,
  TERPENE_ALIASES,
  TERPENE_CODES,
  UNIT_MAXIMUM,
  UNITS_OF_BASIS,
} from './lab-vocabulary.js';
import { listEntries } from './list-entries.js';

/**
 * Checking and normalizing the rich item's documents (item-documents.ts declares their shapes): a
 * value against its schema, an optional object, and a list of lab results with its own rules.
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

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
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

/** An analyte list's vocabulary: its codes, the spellings input may use for them, and its noun. */
interface Vocabulary {
  codes: readonly string[];
  aliases: ReadonlyMap<string, string>;
  known: ReadonlySet<string>;
  noun: string;
}

const VOCABULARIES: Record<'cannabinoids' | 'terpenes', Vocabulary> = {
  cannabinoids: {
    codes: CANNABINOID_CODES,
    aliases: CANNABINOID_ALIASES,
    known: new Set(CANNABINOID_CODES),
    noun: 'cannabinoid',
  },
  terpenes: {
    codes: TERPENE_CODES,
    aliases: TERPENE_ALIASES,
    known: new Set(TERPENE_CODES),
    noun: 'terpene',
  },
};

/** The analyte lists' own rules, on top of their schema: the code's vocabulary, the unit and the values. */
export function checkAnalytes(
  which: 'cannabinoids' | 'terpenes',
  value: unknown,
  path: string,
  maxItems: number,
  problems: DocumentProblem[],
): Analyte[] | undefined {
  const list = listEntries(value, path, maxItems, '{code, min, max, unit, basis, status}', problems);
  if (list === undefined) return undefined;
  const vocabulary = VOCABULARIES[which];
  const before = problems.length;
  const analytes: (Analyte | undefined)[] = [];
  for (let index = 0; index < list.length; index++) {
    analytes.push(checkAnalyte(vocabulary, list[index], path, index, analytes, problems));
  }
  return problems.length > before ? undefined : (analytes as Analyte[]);
}

/**
 * One entry of an analyte list (see checkAnalytes); `earlier` are the entries before it (undefined
 * where refused). Its path is written out only for a problem.
 */
function checkAnalyte(
  { codes, aliases, known, noun }: Vocabulary,
  raw: unknown,
  path: string,
  index: number,
  earlier: readonly (Analyte | undefined)[],
  problems: DocumentProblem[],
): Analyte | undefined {
  if (!isPlainObject(raw)) {
    problems.push({
      field: `${path}[${index}]`,
      message: 'must be an object {code, min, max, unit, basis, status}',
    });
    return undefined;
  }
  // Most lists carry the codes themselves: they are found without reducing them to an alias key.
  const code =
    typeof raw.code !== 'string'
      ? undefined
      : known.has(raw.code)
        ? raw.code
        : aliases.get(aliasKey(raw.code));
  if (code === undefined) {
    problems.push({
      field: `${path}[${index}].code`,
      message: `is not a known ${noun} code; use one of ${codes.join(', ')}`,
    });
    return undefined;
  }
  const before = problems.length;
  const analyte = checkValue(AnalyteSchema as Shape, withAnalyteDefaults(raw, code), problems) as
    | Analyte
    | undefined;
  if (!analyte) {
    placeProblems(problems, before, `${path}[${index}]`);
    return undefined;
  }
  const rule = analyteProblem(analyte);
  if (rule) {
    problems.push({ field: `${path}[${index}].${rule.field}`, message: rule.message });
    return undefined;
  }
  // A list holds a few entries: looked through, rather than a key string and a map made for each.
  let first = 0;
  for (; first < earlier.length; first++) {
    const other = earlier[first];
    if (other?.code === analyte.code && other.unit === analyte.unit && other.basis === analyte.basis) break;
  }
  if (first < earlier.length) {
    problems.push({
      field: `${path}[${index}]`,
      message: `repeats ${analyte.code} in ${analyte.unit} per ${analyte.basis} of ${path}[${first}]; give each code once per unit and basis`,
    });
    return undefined;
  }
  return analyte;
}

/**
 * What an analyte may leave out: max (equal to min), basis (weight for a concentration), status
 * (detected when there is a value, else not_tested).
 */
function withAnalyteDefaults(raw: Record<string, unknown>, code: string): Record<string, unknown> {
  const min = raw.min ?? (raw.status === undefined || raw.status === 'detected' ? raw.max : undefined);
  const max = raw.max ?? min;
  const unit = typeof raw.unit === 'string' ? raw.unit.trim().toLowerCase() : raw.unit;
  const concentration = typeof unit === 'string' && UNITS_OF_BASIS.weight.includes(unit as PotencyUnit);
  const basis = raw.basis ?? (concentration ? 'weight' : undefined);
  const status = raw.status ?? (min !== undefined && min !== null ? 'detected' : 'not_tested');
  // An analyte that spells out every field as the check reads it (most do) is checked as it is, not copied.
  if (
    code === raw.code &&
    min === raw.min &&
    max === raw.max &&
    unit === raw.unit &&
    basis === raw.basis &&
    status === raw.status
  )
    return raw;
  // An object of the analyte's own fields only is made as one literal, in the schema's order: copied
  // by a spread and given a field it lacked (status, most often), it took about 500 bytes instead of 64
  // (bench/PROFILE.md, round twenty-eight). Other fields are kept, for the check to refuse them.
  for (const key in raw) {
    if (!ANALYTE_FIELDS.has(key)) return { ...raw, code, min, max, unit, basis, status };
  }
  return { code, min, max, unit, basis, status };
}

const ANALYTE_FIELDS: ReadonlySet<string> = new Set(Object.keys(AnalyteSchema.properties));

function analyteProblem(analyte: Analyte): DocumentProblem | undefined {
  const fits = UNITS_OF_BASIS[analyte.basis];
  if (!fits.includes(analyte.unit)) {
    return {
      field: 'unit',
      message: `${analyte.unit} does not fit basis ${analyte.basis}; use ${fits.join(' or ')} (a concentration, ${UNITS_OF_BASIS.weight.join(', ')}, has basis weight; mg is per package or per serving)`,
    };
  }
  if (analyte.status !== 'detected') {
    if (analyte.min !== null || analyte.max !== null)
      return {
        field: 'status',
        message: `is ${analyte.status}: leave min and max out (or null), or use detected`,
      };
    return undefined;
  }
  if (analyte.min === null || analyte.max === null)
    return {
      field: 'min',
      message: 'is required when the status is detected (min and max; equal for one value)',
    };
  if (analyte.min > analyte.max)
    return {
      field: 'min',
      message: `${analyte.min} is above max ${analyte.max}; swap them or send one value`,
    };
  const maximum = UNIT_MAXIMUM[analyte.unit];
  if (analyte.max > maximum) {
    const what = analyte.unit === '%' ? 'a percentage' : `a value in ${analyte.unit}`;
    return { field: 'max', message: `${analyte.max} is above ${maximum}, the most ${what} can be` };
  }
  return undefined;
}
