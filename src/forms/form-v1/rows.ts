import type { MenuItem } from '../../domain/item.js';
import { headlinePotency } from '../../domain/item-reads.js';
import { type PricedItemRecord, pricedItemRecord } from '../../domain/priced-item.js';
import type { MenuPricing } from '../../domain/special-pricing.js';
import { KeptJson } from './page-body.js';
import type { MenuQuery } from './query.js';

/**
 * The rows of Form v1's query engine (engine.ts): each item's v1 record and JSON, made once per menu
 * version, with the values filters, sorts and the search read; and the filter itself.
 */

/** A potency range, as filters compare it. */
interface Range {
  min: number;
  max: number;
}

/** One item as queries see it: its v1 record and JSON, and the values filters and sorts read. */
export interface Row {
  id: number;
  record: PricedItemRecord;
  /** The point of sale's id ("" when none), for `/v1/menu/ext:<external_id>`. */
  externalId: string;
  /**
   * The record's JSON, made once per menu; its UTF-8 bytes, which a page's body copies instead of
   * encoding the text again for every page, and their tag (the item's own answer's, and what a page's
   * tag hashes), made when first asked (bench/PROFILE.md, round twenty-seven).
   */
  json: KeptJson;
  name: string;
  brand: string;
  productType: string;
  strainType: string | null;
  tags: readonly string[];
  effects: readonly string[];
  /**
   * The headline potency in percent by weight, as a range, else thc or cbd as written (percent): a
   * menu kept in the specification's fields filters and sorts by what its items say. Null when neither.
   */
  thc: Range | null;
  cbd: Range | null;
  /**
   * The total in mg per package: the headline of the lab values in mg on the package basis, else
   * total_thc or total_cbd as written (milligrams); null when neither is known.
   */
  thcMg: Range | null;
  cbdMg: Range | null;
  /** The effective prices (under the specials now) of the entries: adult-use, and medical where set. */
  recPrices: readonly number[];
  medPrices: readonly number[];
  /** Whether some entry's adult-use (rec) or medical (med) price is lowered by a special now. */
  recSpecial: boolean;
  medSpecial: boolean;
  /** The lowest effective adult-use price per gram of the entries with a weight. */
  pricePerGram: number | null;
  inStock: boolean;
  staffPick: boolean;
  active: boolean;
  /** The latest change of a price entry (ISO time), or "" when none is known. */
  updatedAt: string;
  /** Folded words, by weight (search-index.ts, WEIGHTS): the name's, then brand and strain, then the rest. */
  words: readonly (readonly string[])[];
}

/** Text as search compares it: no accents, lower case. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

export function wordsOf(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

type Headline = PricedItemRecord['potency']['thc'];

function inUnit(headline: Headline, unit: string): Range | null {
  return headline && headline.unit === unit ? { min: headline.min, max: headline.max } : null;
}

/** The headline potency of the lab values in mg per package (an edible's 100 mg), by the read's rule. */
function perPackage(item: MenuItem) {
  return headlinePotency(
    item.cannabinoids.filter((analyte) => analyte.unit === 'mg' && analyte.basis === 'package'),
  );
}

const written = (milligrams: number | null): Range | null =>
  milligrams === null ? null : { min: milligrams, max: milligrams };

/** A price per gram to the cent, as the read's price_per_gram is. */
const perGram = (price: number, grams: number) => Math.round((price / grams) * 100) / 100;

/** The latest change of the item's price entries (ISO times compare as text), or "". */
export function latestChange(item: MenuItem): string {
  let latest = '';
  for (const price of item.prices) if ((price.updatedAt ?? '') > latest) latest = price.updatedAt ?? '';
  return latest;
}

export function rowOf(item: MenuItem, pricing: MenuPricing): Row {
  const record = pricedItemRecord(item, pricing);
  const json = new KeptJson(JSON.stringify(record));
  const perGramPrices = record.prices.flatMap((price) =>
    price.net_weight_g ? [perGram(price.effective_price, price.net_weight_g)] : [],
  );
  const mg = perPackage(item);
  return {
    id: record.id,
    record,
    externalId: item.externalId,
    json,
    name: fold(record.name),
    brand: fold(record.brand),
    productType: record.product_type.toLowerCase(),
    strainType: record.strain?.type ?? null,
    tags: record.tags.map(fold),
    effects: record.effects.map(fold),
    thc: inUnit(record.potency.thc, '%') ?? written(record.thc),
    cbd: inUnit(record.potency.cbd, '%') ?? written(record.cbd),
    thcMg: inUnit(mg.thc, 'mg') ?? written(record.total_thc),
    cbdMg: inUnit(mg.cbd, 'mg') ?? written(record.total_cbd),
    recPrices: record.prices.map((price) => price.effective_price),
    medPrices: record.prices.flatMap((price) =>
      price.effective_med_price === null ? [] : [price.effective_med_price],
    ),
    recSpecial: record.prices.some((price) => price.special !== null),
    medSpecial: record.prices.some((price) => price.med_special !== null),
    pricePerGram: perGramPrices.length > 0 ? Math.min(...perGramPrices) : null,
    inStock: record.prices.some((price) => price.stock === null || price.stock > 0),
    staffPick: record.staff_pick,
    active: record.active,
    updatedAt: latestChange(item),
    words: [
      wordsOf(record.name),
      [...wordsOf(record.brand), ...wordsOf(record.strain?.name ?? '')],
      [record.description, ...record.tags, ...record.effects, ...record.flavors].flatMap(wordsOf),
    ],
  };
}

const overlaps = (potency: Range | null, min?: number, max?: number) =>
  min === undefined && max === undefined
    ? true
    : potency !== null &&
      (min === undefined || potency.max >= min) &&
      (max === undefined || potency.min <= max);

/** Whether an item passes every filter of the query (all of them; within one filter, any value). */
export function matches(row: Row, query: MenuQuery): boolean {
  if (query.active === 'true' && !row.active) return false;
  if (query.active === 'false' && row.active) return false;
  if (query.ids.length > 0 && !query.ids.includes(row.id)) return false;
  if (
    query.productTypes.length > 0 &&
    !query.productTypes.some((type) => type.toLowerCase() === row.productType)
  )
    return false;
  if (query.brands.length > 0 && !query.brands.some((brand) => fold(brand) === row.brand)) return false;
  if (
    query.strainTypes.length > 0 &&
    (row.strainType === null || !query.strainTypes.includes(row.strainType))
  )
    return false;
  if (query.tags.length > 0 && !query.tags.some((tag) => row.tags.includes(fold(tag)))) return false;
  if (query.effects.length > 0 && !query.effects.some((effect) => row.effects.includes(fold(effect))))
    return false;
  const mg = query.potencyUnit === 'mg';
  if (!overlaps(mg ? row.thcMg : row.thc, query.thcMin, query.thcMax)) return false;
  if (!overlaps(mg ? row.cbdMg : row.cbd, query.cbdMin, query.cbdMax)) return false;
  if (query.onSpecial && !(query.menuType === 'med' ? row.medSpecial : row.recSpecial)) return false;
  if (query.priceMin !== undefined || query.priceMax !== undefined) {
    const prices = query.menuType === 'med' ? row.medPrices : row.recPrices;
    const inRange = (price: number) =>
      (query.priceMin === undefined || price >= query.priceMin) &&
      (query.priceMax === undefined || price <= query.priceMax);
    if (!prices.some(inRange)) return false;
  }
  if (query.inStock && !row.inStock) return false;
  if (query.staffPick && !row.staffPick) return false;
  if (query.updatedSince !== undefined && !(row.updatedAt > query.updatedSince)) return false;
  return true;
}
