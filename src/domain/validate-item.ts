import { Checker, checkField, type FieldProblem, type Limits } from './field-checks.js';
import type { Field, FieldKind } from './field-kinds.js';
import type { MenuItemInput, PriceEntry } from './item.js';
import { ITEM_FIELD_LIST, type NamedField, PRICE_FIELD_LIST } from './item-schema.js';
import { listEntries } from './list-entries.js';
import { recordShape } from './record-shape.js';

export type { FieldProblem } from './field-checks.js';

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
  let aliased = false;
  for (const key in raw) aliased ||= (aliases[key] ?? key) !== key;
  if (!aliased) return raw;
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

const ITEM_FIELD_NAMES = new Set(ITEM_FIELD_LIST.map((field) => field.name));
const PRICE_FIELD_NAMES = new Set(PRICE_FIELD_LIST.map((field) => field.name));

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
  const list = listEntries(raw, `${prefix}${name}`, limits.maxItems!, 'price entries', problems);
  if (list === undefined) return undefined;
  const entries: PriceEntry[] = [];
  let failed = false;
  for (let index = 0; index < list.length; index++) {
    const entryRaw: unknown = list[index];
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
const READ_ONLY_PRICE_FIELDS = [
  'net_weight_g',
  'price_per_gram',
  'effective_price',
  'special',
  'effective_med_price',
  'med_special',
];

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
  for (let index = 0; index < raw.length; index++) {
    const rawItem: unknown = raw[index];
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
