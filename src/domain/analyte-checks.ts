import { checkDocument, isPlainObject } from './document-checks.js';
import { type Analyte, AnalyteSchema, type DocumentProblem } from './item-documents.js';
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
 * The lab result lists' (cannabinoids, terpenes) own rules, on top of their entries' schema (checked
 * by document-checks.ts): each code from the list's vocabulary, a unit that fits the basis, values
 * in range, and a code given once per unit and basis.
 */

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
  const analyte = checkDocument(
    AnalyteSchema,
    withAnalyteDefaults(raw, code),
    `${path}[${index}]`,
    problems,
  ) as Analyte | undefined;
  if (!analyte) return undefined;
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
