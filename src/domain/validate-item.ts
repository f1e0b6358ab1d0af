import { CANONICAL_ITEM_FIELDS, CANONICAL_PRICE_FIELDS } from './canonical.js';
import {
  MAX_ITEM_ID,
  type MenuItemInput,
  PRODUCT_TYPES,
  type PriceEntry,
  type ProductType,
  UNITS,
  type Unit,
} from './item.js';
import { toCents } from './money.js';

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

const ITEM_FIELDS = [...CANONICAL_ITEM_FIELDS, 'prices'] as const;

export const LIMITS = {
  nameLength: 200,
  brandLength: 200,
  subtypeLength: 100,
  descriptionLength: 10_000,
  imageLength: 2_048,
  tagLength: 100,
  tagsPerList: 50,
  pricesPerItem: 100,
  amountMax: 1_000_000,
  stockMax: 1_000_000_000,
  milligramsMax: 1_000_000,
} as const;

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

  tags(field: string): string[] | undefined {
    const value = this.values[field];
    if (!this.present(field)) return [];
    if (!Array.isArray(value)) return this.fail(field, 'must be an array of strings');
    if (value.length > LIMITS.tagsPerList)
      return this.fail(field, `must have at most ${LIMITS.tagsPerList} entries`);
    const tags: string[] = [];
    for (const [index, tag] of value.entries()) {
      if (typeof tag !== 'string' || tag.trim().length === 0) {
        return this.fail(`${field}[${index}]`, 'must be a non-empty string');
      }
      if (tag.length > LIMITS.tagLength) {
        return this.fail(`${field}[${index}]`, `must be at most ${LIMITS.tagLength} characters`);
      }
      // A CSV cell separates list entries with ';', so a tag holding one could not survive an export.
      if (tag.includes(';')) return this.fail(`${field}[${index}]`, "must not contain ';'");
      tags.push(tag.trim());
    }
    return tags;
  }

  unknownFields(known: readonly string[]): void {
    for (const key of Object.keys(this.values)) {
      if (!known.includes(key)) this.fail(key, 'is not a known field');
    }
  }

  raise(field: string, message: string): void {
    this.fail(field, message);
  }
}

function productType(check: Checker, value: unknown): ProductType | undefined {
  if (value === undefined || value === null) {
    check.raise('product_type', 'is required');
    return undefined;
  }
  const match =
    typeof value === 'string'
      ? PRODUCT_TYPES.find((type) => type.toLowerCase() === value.trim().toLowerCase())
      : undefined;
  if (!match) check.raise('product_type', `must be one of ${PRODUCT_TYPES.join(', ')}`);
  return match;
}

function itemId(check: Checker, value: unknown): number | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_ITEM_ID) {
    check.raise('id', `must be an integer from 1 to ${MAX_ITEM_ID}`);
    return undefined;
  }
  return value;
}

function priceEntry(raw: unknown, prefix: string, problems: FieldProblem[]): PriceEntry | undefined {
  if (!isPlainObject(raw)) {
    problems.push({ field: prefix.slice(0, -1), message: 'must be an object with unit, amount and price' });
    return undefined;
  }
  const check = new Checker(raw, prefix);
  check.unknownFields(CANONICAL_PRICE_FIELDS);
  const unit = UNITS.find((candidate) => candidate === raw.unit);
  if (!unit) check.raise('unit', `must be one of ${UNITS.join(', ')}`);
  let amount: number | undefined;
  if (
    typeof raw.amount !== 'number' ||
    !Number.isFinite(raw.amount) ||
    raw.amount <= 0 ||
    raw.amount > LIMITS.amountMax
  ) {
    check.raise('amount', `must be a number above 0 and at most ${LIMITS.amountMax}`);
  } else {
    amount = raw.amount;
  }
  let priceCents: number | null = null;
  if (typeof raw.price !== 'number') {
    check.raise('price', 'must be a number');
  } else {
    priceCents = toCents(raw.price);
    if (priceCents === null) check.raise('price', 'must be a non-negative amount with at most two decimals');
  }
  const stock = check.number('stock', 0, LIMITS.stockMax);
  problems.push(...check.problems);
  if (check.problems.length > 0 || unit === undefined || amount === undefined || priceCents === null)
    return undefined;
  return { unit: unit as Unit, amount, priceCents, stock: stock ?? null };
}

function prices(raw: unknown, prefix: string, problems: FieldProblem[]): PriceEntry[] | undefined {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push({ field: `${prefix}prices`, message: 'must be an array of price entries' });
    return undefined;
  }
  if (raw.length > LIMITS.pricesPerItem) {
    problems.push({ field: `${prefix}prices`, message: `must have at most ${LIMITS.pricesPerItem} entries` });
    return undefined;
  }
  const entries: PriceEntry[] = [];
  const seen = new Set<string>();
  let failed = false;
  for (const [index, entryRaw] of raw.entries()) {
    const entry = priceEntry(entryRaw, `${prefix}prices[${index}].`, problems);
    if (!entry) {
      failed = true;
      continue;
    }
    const key = `${entry.unit}:${entry.amount}`;
    if (seen.has(key)) {
      problems.push({
        field: `${prefix}prices[${index}]`,
        message: `repeats unit ${entry.unit} with amount ${entry.amount}; each unit and amount appears once per item`,
      });
      failed = true;
    }
    seen.add(key);
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
  const values = canonicalKeys(raw, aliases, problems, prefix);
  const check = new Checker(values, prefix);
  check.unknownFields(ITEM_FIELDS);
  const id = itemId(check, values.id);
  const name = check.text('name', LIMITS.nameLength, true);
  const brand = check.text('brand', LIMITS.brandLength, false);
  const type = productType(check, values.product_type);
  const subtype = check.text('product_subtype', LIMITS.subtypeLength, false);
  const description = check.text('description', LIMITS.descriptionLength, false);
  const imageText = check.text('image', LIMITS.imageLength, false);
  if (imageText && !/^https?:\/\/\S+$/i.test(imageText)) check.raise('image', 'must be an http or https URL');
  const cbd = check.number('cbd', 0, 100);
  const cbn = check.number('cbn', 0, 100);
  const thc = check.number('thc', 0, 100);
  const totalThc = check.number('total_thc', 0, LIMITS.milligramsMax);
  const totalCbd = check.number('total_cbd', 0, LIMITS.milligramsMax);
  const flavors = check.tags('flavors');
  const effects = check.tags('effects');
  const conditions = check.tags('conditions');
  const active = values.active ?? true;
  if (typeof active !== 'boolean') check.raise('active', 'must be true or false');
  const priceEntries = prices(values.prices, prefix, problems);
  problems.push(...check.problems);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    item: {
      id: id ?? null,
      name: name!,
      brand: brand ?? '',
      productType: type!,
      productSubtype: subtype ?? '',
      description: description ?? '',
      image: imageText ? imageText : null,
      cbd: cbd ?? null,
      cbn: cbn ?? null,
      thc: thc ?? null,
      totalThc: totalThc ?? null,
      totalCbd: totalCbd ?? null,
      flavors: flavors!,
      effects: effects!,
      conditions: conditions!,
      active: active as boolean,
      prices: priceEntries!,
    },
  };
}

export type MenuResult = { ok: true; items: MenuItemInput[] } | { ok: false; problems: FieldProblem[] };

/** Validates a whole menu: every item, and ids unique across it. Collects every problem, not just the first. */
export function validateMenu(raw: unknown, aliases: FieldAliases, maxItems: number): MenuResult {
  if (!Array.isArray(raw))
    return { ok: false, problems: [{ field: 'menu', message: 'must be a JSON array of items' }] };
  if (raw.length > maxItems) {
    return {
      ok: false,
      problems: [{ field: 'menu', message: `has ${raw.length} items; at most ${maxItems} allowed` }],
    };
  }
  const problems: FieldProblem[] = [];
  const items: MenuItemInput[] = [];
  const seenIds = new Map<number, number>();
  for (const [index, rawItem] of raw.entries()) {
    const result = validateItem(rawItem, aliases, `[${index}].`);
    if (!result.ok) {
      problems.push(...result.problems);
      continue;
    }
    const { id } = result.item;
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
  return problems.length > 0 ? { ok: false, problems } : { ok: true, items };
}
