import type { CellSyntax } from '../../domain/field-kinds.js';
import type { NamedField } from '../../domain/item-schema.js';
import type { FieldProblem } from '../../domain/validate-item.js';

/**
 * How a structured field (kind `document`) is written in one CSV cell, so that a person editing the
 * sheet can read and write it (docs/rich-item.md): entries separated by `;`, each `name=value`.
 * - analytes: `d9-thc=18.2 %; d9-thca=20-22 %; cbd=nd %; d9-thc=5 mg/serving`: the code, then min
 *   (or min-max, or the status nd, lt_loq, not_tested), then the unit, with `mg/package` or
 *   `mg/serving` for mg (the other units' basis is weight).
 * - images: `primary=https://…/a.jpg Alt text; label=https://…/b.jpg`: role, URL, then the alt text.
 * - pairs (an object): `name=Blue Dream; type=hybrid`; nested fields dotted, `tests.potency=pass`;
 *   a null field is left out.
 * What a cell holds is checked afterwards like a JSON value of the field; the reader only types it.
 */

const SEPARATOR = '; ';
const NUMBER = '\\d+(?:\\.\\d+)?(?:e[-+]?\\d+)?';
const ANALYTE = new RegExp(`^(${NUMBER})(?:\\s*-\\s*(${NUMBER}))?\\s*(\\S+)$`, 'i');
const STATUS = /^(nd|lt_loq|not_tested)\s*(\S+)$/i;

type Json = Record<string, unknown>;

export function writeCell(field: NamedField, value: unknown): string {
  if (value === null) return '';
  const syntax = field.cell as CellSyntax;
  if (syntax === 'pairs') return pairsOf(value as Json, '').join(SEPARATOR);
  return (value as Json[])
    .map((entry) => (syntax === 'analytes' ? analyteCell(entry) : imageCell(entry)))
    .join(SEPARATOR);
}

function analyteCell(analyte: Json): string {
  const unit = analyte.unit === 'mg' ? `mg/${analyte.basis}` : String(analyte.unit);
  const value =
    analyte.status !== 'detected'
      ? String(analyte.status)
      : analyte.min === analyte.max
        ? String(analyte.min)
        : `${analyte.min}-${analyte.max}`;
  return `${analyte.code}=${value} ${unit}`;
}

function imageCell(image: Json): string {
  return `${image.role}=${image.url}${image.alt ? ` ${image.alt}` : ''}`;
}

function pairsOf(record: Json, prefix: string): string[] {
  return Object.entries(record).flatMap(([key, value]) => {
    if (value === null) return [];
    if (typeof value === 'object') return pairsOf(value as Json, `${prefix}${key}.`);
    return [`${prefix}${key}=${String(value)}`];
  });
}

/** A cell's entries as a JSON value for the field's check; undefined (after a problem) when unreadable. */
export function readCell(field: NamedField, cell: string, at: string, problems: FieldProblem[]): unknown {
  const entries = cell
    .split(';')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const pairs: [string, string][] = [];
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    if (equals <= 0) {
      problems.push({ field: at, message: `"${entry}" is not name=value; ${HOW_TO_WRITE[field.cell!]}` });
      return undefined;
    }
    pairs.push([entry.slice(0, equals).trim(), entry.slice(equals + 1).trim()]);
  }
  switch (field.cell) {
    case 'analytes':
      return pairs.map(([code, value]) => analyteOf(code, value));
    case 'images':
      return pairs.map(([role, value]) => {
        const space = value.search(/\s/);
        return space < 0
          ? { url: value, alt: '', role }
          : { url: value.slice(0, space), alt: value.slice(space).trim(), role };
      });
    default:
      return recordOf(pairs, field.schema as Shape);
  }
}

const HOW_TO_WRITE: Record<CellSyntax, string> = {
  analytes: 'write each as code=value unit, such as d9-thc=18.2 % or cbd=nd %',
  images: 'write each as role=URL alt text, such as primary=https://example.com/a.jpg Front',
  pairs: 'write each as name=value, such as name=Blue Dream',
};

/** An analyte cell entry as the JSON value it stands for; what does not parse is left for the check. */
function analyteOf(code: string, value: string): Json {
  const status = STATUS.exec(value);
  const measured = status ? null : ANALYTE.exec(value);
  const token = (status?.[2] ?? measured?.[3] ?? '').toLowerCase();
  const [unit, basis] =
    token.startsWith('mg/') && !['mg/g', 'mg/ml'].includes(token) ? ['mg', token.slice(3)] : [token];
  if (status) return { code, unit, ...(basis ? { basis } : {}), status: status[1]!.toLowerCase() };
  if (!measured) return { code, min: value };
  const min = Number(measured[1]);
  return {
    code,
    min,
    max: measured[2] === undefined ? min : Number(measured[2]),
    unit,
    ...(basis ? { basis } : {}),
  };
}

interface Shape {
  type?: string | string[];
  anyOf?: Shape[];
  properties?: Record<string, Shape>;
}

/** The schema's own type, past a nullable union. */
function typeOf(shape: Shape | undefined): string | undefined {
  if (!shape) return undefined;
  if (shape.anyOf) return typeOf(shape.anyOf.find((option) => option.type !== 'null'));
  return Array.isArray(shape.type) ? shape.type.find((type) => type !== 'null') : shape.type;
}

function propertiesOf(shape: Shape | undefined): Record<string, Shape> {
  if (!shape) return {};
  if (shape.anyOf) return propertiesOf(shape.anyOf.find((option) => option.type !== 'null'));
  return shape.properties ?? {};
}

/** `a.b=value` pairs as an object, each value typed as its schema says (text stays text). */
function recordOf(pairs: readonly [string, string][], schema: Shape): Json | undefined {
  if (pairs.length === 0) return undefined;
  const record: Json = {};
  for (const [path, text] of pairs) {
    const keys = path.split('.');
    let target = record;
    let shape: Shape | undefined = schema;
    for (const key of keys.slice(0, -1)) {
      shape = propertiesOf(shape)[key];
      target[key] ??= {};
      target = target[key] as Json;
    }
    const last = keys.at(-1)!;
    target[last] = typed(text, typeOf(propertiesOf(shape)[last]));
  }
  return record;
}

function typed(text: string, type: string | undefined): unknown {
  if (type === 'number' || type === 'integer') {
    const number = Number(text);
    return text !== '' && Number.isFinite(number) ? number : text;
  }
  if (type === 'boolean') {
    const lower = text.toLowerCase();
    return ['true', 'yes', '1'].includes(lower) ? true : ['false', 'no', '0'].includes(lower) ? false : text;
  }
  return text;
}
