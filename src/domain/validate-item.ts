import type { MenuItemInput, PriceEntry } from './item.js';
import {
  type DocumentCheck,
  type Field,
  type FieldKind,
  ITEM_FIELD_LIST,
  type NamedField,
  PRICE_FIELD_LIST,
} from './item-schema.js';
import { toCents } from './money.js';
import { recordShape } from './record-shape.js';

/** One reason an input was rejected; `field` is a path such as `prices[1].amount`. */
export interface FieldProblem {
  field: string;
  message: string;
}

export type ItemResult = { ok: true; item: MenuItemInput } | { ok: false; problems: FieldProblem[] };

/**
 * Field names other than the canonical ones that an input may use, mapped to the canonical name.
 * Each request form contributes its own spellings, so an export in any form imports unchanged.
 */
export type FieldAliases = Readonly<Record<string, string>>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Rewrites alias keys to canonical ones; an alias that disagrees with its canonical twin is a problem. */
function canonicalKeys(
  raw: Record<string, unknown>,
  aliases: FieldAliases,
  problems: FieldProblem[],
  prefix: string,
): Record<string, unknown> {
  // Inputs that spell every field canonically (most) are read as they are, not copied key by key.
  if (Object.keys(raw).every((key) => (aliases[key] ?? key) === key)) return raw;
  const out: Record<string, unknown> = {};
  const source: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const canonical = aliases[key] ?? key;
    if (canonical in out) {
      if (!sameJson(out[canonical], value)) {
        problems.push({
          field: `${prefix}${key}`,
          message: `disagrees with ${source[canonical]}; send one of them`,
        });
      }
      continue;
    }
    out[canonical] = value;
    source[canonical] = key;
  }
  return out;
}

class Checker {
  readonly problems: FieldProblem[] = [];
  constructor(
    private readonly values: Record<string, unknown>,
    private readonly prefix: string,
  ) {}

  private fail(field: string, message: string): undefined {
    this.problems.push({ field: `${this.prefix}${field}`, message });
    return undefined;
  }

  private present(field: string): boolean {
    return this.values[field] !== undefined && this.values[field] !== null;
  }

  text(field: string, maxLength: number, required: boolean): string | undefined {
    const value = this.values[field];
    if (!this.present(field)) {
      return required ? this.fail(field, 'is required') : '';
    }
    if (typeof value !== 'string') return this.fail(field, 'must be a string');
    // PostgreSQL text cannot hold NUL: refused here, on every database alike, rather than a 500 there.
    if (value.includes('\0')) return this.fail(field, 'must not contain a NUL character');
    const trimmed = value.trim();
    if (required && trimmed.length === 0) return this.fail(field, 'must not be empty');
    if (trimmed.length > maxLength) return this.fail(field, `must be at most ${maxLength} characters`);
    return trimmed;
  }

  number(field: string, min: number, max: number): number | null | undefined {
    const value = this.values[field];
    if (!this.present(field)) return null;
    if (typeof value !== 'number' || !Number.isFinite(value)) return this.fail(field, 'must be a number');
    if (value < min || value > max) return this.fail(field, `must be between ${min} and ${max}`);
    return value;
  }

  tags(field: string, maxEntries: number, maxLength: number): string[] | undefined {
    const value = this.values[field];
    if (!this.present(field)) return [];
    if (!Array.isArray(value)) return this.fail(field, 'must be an array of strings');
    if (value.length > maxEntries) return this.fail(field, `must have at most ${maxEntries} entries`);
    const tags: string[] = [];
    for (const [index, tag] of value.entries()) {
      if (typeof tag !== 'string' || tag.trim().length === 0) {
        return this.fail(`${field}[${index}]`, 'must be a non-empty string');
      }
      if (tag.length > maxLength) {
        return this.fail(`${field}[${index}]`, `must be at most ${maxLength} characters`);
      }
      // A CSV cell separates list entries with ';', so a tag holding one could not survive an export.
      if (tag.includes(';')) return this.fail(`${field}[${index}]`, "must not contain ';'");
      tags.push(tag.trim());
    }
    return tags;
  }

  unknownFields(known: ReadonlySet<string>): void {
    for (const key of Object.keys(this.values)) {
      if (!known.has(key)) this.fail(key, 'is not a known field');
    }
  }

  raise(field: string, message: string): void {
    this.fail(field, message);
  }

  document(field: string, check: DocumentCheck): unknown {
    return check(this.values[field], `${this.prefix}${field}`, this.problems);
  }
}

const ITEM_FIELD_NAMES = new Set(ITEM_FIELD_LIST.map((field) => field.name));
const PRICE_FIELD_NAMES = new Set(PRICE_FIELD_LIST.map((field) => field.name));

/** The limits a field's schema declares, which its checks and messages use. */
interface Limits {
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  maxItems?: number;
  enum?: readonly string[];
  items?: Limits;
  type?: string | string[];
  default?: unknown;
}

const nullable = (limits: Limits) => Array.isArray(limits.type) && limits.type.includes('null');

/** Checks one field by its kind; the value for the model, or undefined after raising a problem. */
function checkField(
  check: Checker,
  name: string,
  spec: Field<Exclude<FieldKind, 'entries'>>,
  value: unknown,
): unknown {
  const limits = spec.schema as Limits;
  switch (spec.kind) {
    case 'id':
      if (value === undefined || value === null) return null;
      if (
        typeof value !== 'number' ||
        !Number.isInteger(value) ||
        value < limits.minimum! ||
        value > limits.maximum!
      ) {
        check.raise(name, `must be an integer from ${limits.minimum} to ${limits.maximum}`);
        return undefined;
      }
      return value;
    case 'text':
      return check.text(name, limits.maxLength!, (limits.minLength ?? 0) > 0);
    case 'url': {
      const text = check.text(name, limits.maxLength!, false);
      if (text && !/^https?:\/\/\S+$/i.test(text)) check.raise(name, 'must be an http or https URL');
      return text ? text : null;
    }
    case 'category': {
      if (value === undefined || value === null) {
        check.raise(name, 'is required');
        return undefined;
      }
      const choices = limits.enum!;
      const match =
        typeof value === 'string'
          ? choices.find((choice) => choice.toLowerCase() === value.trim().toLowerCase())
          : undefined;
      if (!match) check.raise(name, `must be one of ${choices.join(', ')}`);
      return match;
    }
    case 'unit': {
      const choices = limits.enum!;
      const match = choices.find((choice) => choice === value);
      if (!match) check.raise(name, `must be one of ${choices.join(', ')}`);
      return match;
    }
    case 'number':
      return check.number(name, limits.minimum!, limits.maximum!);
    case 'measure':
      if (
        typeof value !== 'number' ||
        !Number.isFinite(value) ||
        value <= limits.exclusiveMinimum! ||
        value > limits.maximum!
      ) {
        check.raise(name, `must be a number above ${limits.exclusiveMinimum} and at most ${limits.maximum}`);
        return undefined;
      }
      return value;
    case 'money': {
      if ((value === undefined || value === null) && nullable(limits)) return null;
      if (typeof value !== 'number') {
        check.raise(name, 'must be a number');
        return undefined;
      }
      const cents = toCents(value);
      if (cents === null) check.raise(name, 'must be a non-negative amount with at most two decimals');
      return cents ?? undefined;
    }
    case 'list':
      return check.tags(name, limits.maxItems!, limits.items!.maxLength!);
    case 'flag': {
      const flag = value ?? limits.default ?? true;
      if (typeof flag !== 'boolean') {
        check.raise(name, 'must be true or false');
        return undefined;
      }
      return flag;
    }
    case 'document':
      return check.document(name, spec.check!);
  }
}

const newItemModel = recordShape(ITEM_FIELD_LIST.map((field) => field.key));
const newPriceModel = recordShape(PRICE_FIELD_LIST.map((field) => field.key));

/**
 * Checks every field of `fields` in `values`, and gives the model's record (made by `newModel`, of
 * the fields' keys) when all are valid.
 */
function checkFields(
  check: Checker,
  fields: readonly NamedField[],
  newModel: () => Record<string, unknown>,
  values: Record<string, unknown>,
  entries: (name: string, limits: Limits, value: unknown) => unknown,
): Record<string, unknown> {
  const model = newModel();
  for (const field of fields) {
    model[field.key] =
      field.kind === 'entries'
        ? entries(field.name, field.schema as Limits, values[field.name])
        : checkField(check, field.name, field as Field<Exclude<FieldKind, 'entries'>>, values[field.name]);
  }
  return model;
}

function priceEntry(raw: unknown, prefix: string, problems: FieldProblem[]): PriceEntry | undefined {
  if (!isPlainObject(raw)) {
    problems.push({ field: prefix.slice(0, -1), message: 'must be an object with unit, amount and price' });
    return undefined;
  }
  const check = new Checker(withoutReadOnly(raw, READ_ONLY_PRICE_FIELDS), prefix);
  check.unknownFields(PRICE_FIELD_NAMES);
  const entry = checkFields(check, PRICE_FIELD_LIST, newPriceModel, raw, () => undefined);
  problems.push(...check.problems);
  return check.problems.length > 0 ? undefined : (entry as PriceEntry);
}

function prices(
  name: string,
  limits: Limits,
  raw: unknown,
  prefix: string,
  problems: FieldProblem[],
): PriceEntry[] | undefined {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push({ field: `${prefix}${name}`, message: 'must be an array of price entries' });
    return undefined;
  }
  if (raw.length > limits.maxItems!) {
    problems.push({ field: `${prefix}${name}`, message: `must have at most ${limits.maxItems} entries` });
    return undefined;
  }
  const entries: PriceEntry[] = [];
  let failed = false;
  for (const [index, entryRaw] of raw.entries()) {
    const entry = priceEntry(entryRaw, `${prefix}${name}[${index}].`, problems);
    if (!entry) {
      failed = true;
      continue;
    }
    // A few entries per item: looked through, rather than a set of keys made for each item.
    if (entries.some((other) => other.unit === entry.unit && other.amount === entry.amount)) {
      problems.push({
        field: `${prefix}${name}[${index}]`,
        message: `repeats unit ${entry.unit} with amount ${entry.amount}; each unit and amount appears once per item`,
      });
      failed = true;
    }
    entries.push(entry);
  }
  return failed ? undefined : entries;
}

/**
 * Validates one menu item given with canonical field names or any alias, and returns the canonical model.
 * `prefix` is prepended to every field path in the problems (for example `[4].`).
 */
export function validateItem(raw: unknown, aliases: FieldAliases, prefix = ''): ItemResult {
  const problems: FieldProblem[] = [];
  if (!isPlainObject(raw)) {
    return {
      ok: false,
      problems: [{ field: prefix.replace(/\.$/, '') || 'item', message: 'must be a JSON object' }],
    };
  }
  const values = withoutReadOnly(canonicalKeys(raw, aliases, problems, prefix), READ_ONLY_ITEM_FIELDS);
  const check = new Checker(values, prefix);
  check.unknownFields(ITEM_FIELD_NAMES);
  const item = checkFields(check, ITEM_FIELD_LIST, newItemModel, values, (name, limits, value) =>
    prices(name, limits, value, prefix, problems),
  ) as MenuItemInput;
  problems.push(...check.problems);
  if (problems.length === 0) primaryImage(item, prefix, problems);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, item };
}

/**
 * `image` is the URL of the first primary image of `images`: taken from it when image is not given,
 * refused when it is given and differs. Without a primary image in the list, `image` stays as written.
 */
function primaryImage(item: MenuItemInput, prefix: string, problems: FieldProblem[]): void {
  const index = item.images.findIndex((image) => image.role === 'primary');
  if (index < 0) return;
  const primary = item.images[index]!.url;
  if (item.image === null) item.image = primary;
  else if (item.image !== primary) {
    problems.push({
      field: `${prefix}image`,
      message: `disagrees with images[${index}].url, the first primary image; send the same URL, or leave image out`,
    });
  }
}

/**
 * Fields the sync API's menu read adds (the derived figures of src/domain/item-reads.ts; each price
 * entry's price now and its special): the server's to work out, so taken back without complaint and
 * never stored, and a menu read can be written back as it is.
 */
const READ_ONLY_ITEM_FIELDS = ['potency'];
const READ_ONLY_PRICE_FIELDS = ['net_weight_g', 'price_per_gram', 'effective_price', 'special'];

function withoutReadOnly(values: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  if (!names.some((name) => name in values)) return values;
  const copy = { ...values };
  for (const name of names) delete copy[name];
  return copy;
}

/** On failure, `items` holds the items that passed (for a dry run's counts). */
export type MenuResult =
  | { ok: true; items: MenuItemInput[] }
  | { ok: false; problems: FieldProblem[]; items: MenuItemInput[] };

/** Validates a whole menu: every item, and ids unique across it. Collects every problem, not just the first. */
export function validateMenu(raw: unknown, aliases: FieldAliases, maxItems: number): MenuResult {
  if (!Array.isArray(raw))
    return { ok: false, problems: [{ field: 'menu', message: 'must be a JSON array of items' }], items: [] };
  if (raw.length > maxItems) {
    return {
      ok: false,
      items: [],
      problems: [{ field: 'menu', message: `has ${raw.length} items; at most ${maxItems} allowed` }],
    };
  }
  const problems: FieldProblem[] = [];
  const items: MenuItemInput[] = [];
  const seenIds = new Map<number, number>();
  const seenExternal = new Map<string, number>();
  for (const [index, rawItem] of raw.entries()) {
    const result = validateItem(rawItem, aliases, `[${index}].`);
    if (!result.ok) {
      problems.push(...result.problems);
      continue;
    }
    const { id, externalId } = result.item;
    if (externalId !== '') {
      const first = seenExternal.get(externalId);
      if (first !== undefined) {
        problems.push({
          field: `[${index}].external_id`,
          message: `repeats external_id ${externalId} of item [${first}]; each is unique within the dispensary`,
        });
        continue;
      }
      seenExternal.set(externalId, index);
    }
    if (id !== null) {
      const first = seenIds.get(id);
      if (first !== undefined) {
        problems.push({ field: `[${index}].id`, message: `repeats id ${id} of item [${first}]` });
        continue;
      }
      seenIds.set(id, index);
    }
    items.push(result.item);
  }
  return problems.length > 0 ? { ok: false, problems, items } : { ok: true, items };
}
