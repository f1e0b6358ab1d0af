import { createHash } from 'node:crypto';
import { sameCanonical } from '../../domain/canonical.js';
import type { MenuItem } from '../../domain/item.js';
import { headlinePotency } from '../../domain/item-reads.js';
import { type PricedItemRecord, pricedItemRecord } from '../../domain/priced-item.js';
import type { MenuPricing } from '../../domain/special-pricing.js';
import { encodeCursor, type Position, type SortValue } from './cursor.js';
import type { Facet, MenuQuery, SortKey } from './query.js';
import { orderKey } from './query.js';
import { SearchIndex } from './search-index.js';

/**
 * The query engine of `/v1/menu`: one index per menu (built once from the items the menu reader keeps,
 * so a warm menu is queried without reading the database), then each query a filter, a sort and a
 * keyset page over it.
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
  /** The record's JSON, made once per menu. */
  json: string;
  name: string;
  brand: string;
  productType: string;
  strainType: string | null;
  tags: readonly string[];
  effects: readonly string[];
  /** The headline potency in percent by weight, as a range; null when there is none in percent. */
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
function latestChange(item: MenuItem): string {
  let latest = '';
  for (const price of item.prices) if ((price.updatedAt ?? '') > latest) latest = price.updatedAt ?? '';
  return latest;
}

export function rowOf(item: MenuItem, pricing: MenuPricing): Row {
  const record = pricedItemRecord(item, pricing);
  const perGramPrices = record.prices.flatMap((price) =>
    price.net_weight_g ? [perGram(price.effective_price, price.net_weight_g)] : [],
  );
  const mg = perPackage(item);
  return {
    id: record.id,
    record,
    externalId: item.externalId,
    json: JSON.stringify(record),
    name: fold(record.name),
    brand: fold(record.brand),
    productType: record.product_type.toLowerCase(),
    strainType: record.strain?.type ?? null,
    tags: record.tags.map(fold),
    effects: record.effects.map(fold),
    thc: inUnit(record.potency.thc, '%'),
    cbd: inUnit(record.potency.cbd, '%'),
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

/** The value an item is sorted by (null: it has none, and comes last in either direction). */
export function sortValue(row: Row, key: SortKey | undefined, query: MenuQuery, score: number): SortValue {
  switch (key) {
    case undefined:
      return null;
    case 'name':
      return row.name;
    case 'price': {
      const prices = query.menuType === 'med' ? row.medPrices : row.recPrices;
      return prices.length > 0 ? Math.min(...prices) : null;
    }
    case 'price_per_gram':
      return row.pricePerGram;
    case 'thc': {
      const thc = query.potencyUnit === 'mg' ? row.thcMg : row.thc;
      return thc === null ? null : thc.max;
    }
    case 'updated_at':
      return row.updatedAt === '' ? null : row.updatedAt;
    case 'relevance':
      // Best first when ascending.
      return -score;
  }
}

/** The order of two (value, id) pairs: by value (nulls last either way), then by id ascending. */
export function compareKeys(
  a: SortValue,
  aId: number,
  b: SortValue,
  bId: number,
  descending: boolean,
): number {
  if (a !== b) {
    if (a === null) return 1;
    if (b === null) return -1;
    const order = a < b ? -1 : 1;
    return descending ? -order : order;
  }
  return aId - bId;
}

interface Ranked {
  row: Row;
  value: SortValue;
}

/** A query's result before paging: the filtered items in order, and the facets over them. */
interface Result {
  ranked: Ranked[];
  facets: Readonly<Record<string, Record<string, number>>>;
  /** orderPrint's, made the first time a cursor needs it. */
  print?: string;
}

/** The sort of a query: `sort`, or relevance with `q`, or by id. */
function effectiveSort(query: MenuQuery): SortKey | undefined {
  return query.sort ?? (query.q ? 'relevance' : undefined);
}

const FACET_VALUES: Readonly<Record<Facet, (row: Row) => readonly string[]>> = {
  brand: (row) => (row.record.brand === '' ? [] : [row.record.brand]),
  product_type: (row) => [row.record.product_type],
  strain_type: (row) => (row.strainType === null ? [] : [row.strainType]),
  tag: (row) => row.record.tags,
};

export function facetsOf(rows: readonly Row[], facets: readonly Facet[]) {
  const counts: Record<string, Record<string, number>> = {};
  for (const facet of facets) {
    const count: Record<string, number> = {};
    for (const row of rows)
      for (const value of new Set(FACET_VALUES[facet](row))) count[value] = (count[value] ?? 0) + 1;
    counts[facet] = Object.fromEntries(
      Object.entries(count).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
  return counts;
}

/** A menu version an index was built from, and that index (its rows in the items' order). */
export interface BuiltFrom {
  items: readonly MenuItem[];
  pricing: MenuPricing;
  index: MenuIndex;
}

/** One menu's rows and the results of its recent queries (a few, the most recent kept). */
export class MenuIndex {
  private readonly results = new Map<string, Result>();
  /** Built the first time a query has `q`: most menu versions are never searched. */
  private searchIndex?: SearchIndex;

  constructor(readonly rows: readonly Row[]) {}

  /**
   * The index of a menu version. With the version before (`previous`: its items, pricing and index), an
   * item equal to its earlier self, priced alike, keeps its row: a one-item change builds one row, not
   * the menu's thousands (the store still reads every item: the live feed leaves inactive items' changes
   * out, so it cannot tell the menu reader which of them changed).
   */
  static of(items: readonly MenuItem[], pricing: MenuPricing, previous?: BuiltFrom): MenuIndex {
    const before = new Map<number, number>();
    if (previous && previous.pricing.print === pricing.print)
      for (const [at, item] of previous.items.entries()) before.set(item.id, at);
    return new MenuIndex(
      items.map((item) => {
        const at = before.get(item.id);
        const earlier = at === undefined ? undefined : previous!.items[at]!;
        const row = at === undefined ? undefined : previous!.index.rows[at];
        return earlier && row && sameCanonical(earlier, item) && latestChange(earlier) === latestChange(item)
          ? row
          : rowOf(item, pricing);
      }),
    );
  }

  /** The row of an item by its id, or by its external_id (`ext:`); undefined when there is none. */
  find(ref: { id: number } | { externalId: string }): Row | undefined {
    return 'id' in ref
      ? this.rows.find((row) => row.id === ref.id)
      : this.rows.find((row) => row.externalId === ref.externalId);
  }

  result(query: MenuQuery): Result {
    const key = `${orderKey(query)}|${query.facets.join(',')}`;
    const kept = this.results.get(key);
    if (kept) return kept;
    const sort = effectiveSort(query);
    const words = query.q ? wordsOf(query.q) : [];
    const ranked: Ranked[] = [];
    const filtered: Row[] = [];
    const keep = (row: Row, score: number) => {
      if (!matches(row, query)) return;
      filtered.push(row);
      ranked.push({ row, value: sortValue(row, sort, query, score) });
    };
    if (words.length > 0) {
      this.searchIndex ??= new SearchIndex(this.rows.map((row) => row.words));
      const found = this.searchIndex.search(words);
      for (const [index, at] of found.rows.entries()) keep(this.rows[at]!, found.scores[index]!);
    } else for (const row of this.rows) keep(row, 0);
    if (sort !== undefined) {
      ranked.sort((a, b) => compareKeys(a.value, a.row.id, b.value, b.row.id, query.descending));
    }
    const result: Result = { ranked, facets: facetsOf(filtered, query.facets) };
    if (this.results.size >= 64) this.results.delete(this.results.keys().next().value!);
    this.results.set(key, result);
    return result;
  }
}

/**
 * A fingerprint of the order of a query's whole result: its items' ids and sort values in order. Two
 * menu versions with the same print list the query's items in the same order, so a paging begun in one
 * may go on in the other (another process's version of the same menu, or a later one whose changes
 * moved nothing in this query).
 */
export function orderPrint(index: MenuIndex, query: MenuQuery): string {
  const result = index.result(query);
  if (result.print === undefined) {
    const hash = createHash('sha256');
    for (const entry of result.ranked) hash.update(`${entry.row.id}\0${JSON.stringify(entry.value)}\n`);
    result.print = hash.digest('base64url').slice(0, 16);
  }
  return result.print;
}

/**
 * A page of a query from one menu version: the items after the position, at most `limit`, and the
 * position after them (`version` names the menu the index is of).
 */
export function page(index: MenuIndex, query: MenuQuery, version: number, after?: Position) {
  const { ranked, facets } = index.result(query);
  let start = 0;
  if (after) {
    // The first item after the cursor's (value, id): the list is in that order, so a binary search.
    let low = 0;
    let high = ranked.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = ranked[middle]!;
      if (compareKeys(entry.value, entry.row.id, after.value, after.id, query.descending) <= 0)
        low = middle + 1;
      else high = middle;
    }
    start = low;
  }
  const rows = ranked.slice(start, start + query.limit);
  const last = rows[rows.length - 1];
  const more = start + query.limit < ranked.length;
  return {
    rows: rows.map((entry) => entry.row),
    total: ranked.length,
    facets,
    next:
      more && last
        ? encodeCursor(orderKey(query), {
            version,
            print: orderPrint(index, query),
            value: last.value,
            id: last.row.id,
          })
        : null,
  };
}
