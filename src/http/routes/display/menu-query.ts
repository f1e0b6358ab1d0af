import { PRODUCT_TYPES } from '../../../domain/item-vocabulary.js';
import { STRAIN_TYPES } from '../../../domain/lab-vocabulary.js';
import { type MenuType, menuTypeOf } from '../../../domain/menu-details.js';
import type { PublishedItem, PublishedMenu } from '../../../domain/published-menu.js';
import { type BuiltFrom, MenuIndex, matches, type Row } from '../../../forms/form-v1/engine.js';
import { type MenuQuery, parseMenuQuery } from '../../../forms/form-v1/query.js';
import { ServiceError } from '../../../services/errors.js';
import type { PricedMenu } from '../../../services/menu-reader.js';

/**
 * The public menu page's filters, search and sort: Form v1's parameters, parser and query engine
 * (src/forms/form-v1), over the very items and prices the published menu was made from. Only the
 * parameters a shopper has a use for are taken; the rest of /v1/menu's (`active`, `ids`, `cursor`,
 * `fields`...) and any other name (a tracking tag a shared link picked up) are ignored, so a public
 * address can never list an inactive item.
 */
export const PAGE_PARAMETERS = [
  'q',
  'product_type',
  'brand',
  'strain_type',
  'tag',
  'effect',
  'thc_min',
  'thc_max',
  'price_min',
  'price_max',
  'on_special',
  'in_stock',
  'staff_pick',
  'sort',
  'menu_type',
] as const;

/** The names the page's links had before it took v1's: shared links keep working. */
const OLD_NAMES: Readonly<Record<string, string>> = { type: 'product_type', menu: 'menu_type' };

/** What a store that hides potency must not let the public sort or filter by either. */
const POTENCY_PARAMETERS = ['thc_min', 'thc_max'];

/** The facets the page counts beside its filters. */
const PAGE_FACETS = ['product_type', 'strain_type'];

export interface PageQuery {
  query: MenuQuery;
  /** The menu whose prices are shown, filtered and sorted by. */
  menuType: MenuType;
  /** The parameters in force, in v1's names: what the page's links carry (the first menu left out). */
  params: URLSearchParams;
  /** One sentence per parameter that was left out for a bad value (the page answers 400 with them). */
  problems: string[];
}

type Raw = Record<string, string | string[]>;

/** A parameter's values, empty ones left out (an HTML form sends its empty fields as `name=`). */
function valuesOf(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter((one): one is string => typeof one === 'string' && one.trim() !== '');
}

/**
 * The page's query from the request's parameters (as Fastify parsed them: a repeated one is an
 * array). Each value is checked by v1's parser; one it refuses is left out and said in `problems`, so
 * the page still shows the menu under the rest.
 */
export function parsePageQuery(
  raw: Readonly<Record<string, unknown>>,
  store: PublishedMenu['store'],
): PageQuery {
  const picked: Raw = {};
  for (const [name, value] of Object.entries(raw)) {
    const v1Name = OLD_NAMES[name] ?? name;
    const values = valuesOf(value);
    if (!(PAGE_PARAMETERS as readonly string[]).includes(v1Name) || values.length === 0) continue;
    if (v1Name !== name && raw[v1Name] !== undefined) continue;
    picked[v1Name] = values.length === 1 ? values[0]! : values;
  }
  if (!store.show_potency) {
    for (const name of POTENCY_PARAMETERS) delete picked[name];
    if (typeof picked.sort === 'string' && picked.sort.endsWith('thc')) delete picked.sort;
  }
  // The page lists by type then name when nothing is searched; "best match" without words is that.
  if (picked.sort === 'relevance' && picked.q === undefined) delete picked.sort;
  // An unknown menu is the store's first, as the menu switch has always had it.
  const asked = typeof picked.menu_type === 'string' ? picked.menu_type : null;
  const menuType = menuTypeOf(store, asked);
  picked.menu_type = menuType;
  const problems: string[] = [];
  for (;;) {
    try {
      const query = parseMenuQuery({ ...picked, facets: PAGE_FACETS }, new Set());
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(picked))
        for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
      if (menuType === menuTypeOf(store, null)) params.delete('menu_type');
      return { query, menuType, params, problems };
    } catch (error) {
      const field = error instanceof ServiceError ? error.problems?.[0]?.field : undefined;
      if (field === undefined || picked[field] === undefined) throw error;
      problems.push((error as ServiceError).message);
      delete picked[field];
    }
  }
}

/** A range of the values shown (potency in percent, prices in the store's currency). */
export interface Span {
  min: number;
  max: number;
}

/** What the page shows of a query: the items in order, and the counts and spans beside the filters. */
export interface PageResult {
  items: PublishedItem[];
  /** Items per product type, strain type: over the items shown (v1's facets), of every value the menu has. */
  types: [string, number][];
  strains: [string, number][];
  /** How many of the items shown a tick of "on special" or "in stock" would keep. */
  onSpecial: number;
  inStock: number;
  /** The headline THC (percent) and the prices of the items shown; null when none has one. */
  thc: Span | null;
  price: Span | null;
  /** Whether some item of the menu has a THC figure in percent (headline or as written), which the THC filter reads. */
  thcKnown: boolean;
}

/** Each menu version's index, built the first time its page is rendered. */
const indexes = new WeakMap<PricedMenu, MenuIndex>();
const itemsById = new WeakMap<PublishedMenu, Map<number, PublishedItem>>();
/**
 * Each dispensary's menu version indexed last, by its lineage (PricedMenu.lineage: it goes with the
 * dispensary): the next version's index keeps the rows of the items that did not change, so a one-item
 * change costs the page's rebuild one row, not thousands.
 */
const latest = new WeakMap<object, BuiltFrom>();

function indexOf(source: PricedMenu): MenuIndex {
  let index = indexes.get(source);
  if (!index) {
    index = MenuIndex.of(source.items, source.pricing, latest.get(source.lineage));
    indexes.set(source, index);
    latest.set(source.lineage, { ...source, index });
  }
  return index;
}

/** Values in the order menus list them (`order`), then any other alphabetically. */
function ordered(counts: Readonly<Record<string, number>>, order: readonly string[]): [string, number][] {
  const rank = (value: string) => (order.includes(value) ? order.indexOf(value) : order.length);
  return Object.entries(counts).sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The counts of `all` (every value of the whole menu), as many as `shown` has of each. */
function countsOf(
  all: Readonly<Record<string, number>> | undefined,
  shown: Readonly<Record<string, number>> | undefined,
  order: readonly string[],
): [string, number][] {
  return ordered(all ?? {}, order).map(([value]) => [value, shown?.[value] ?? 0]);
}

function spanOf(values: Iterable<number>): Span | null {
  let span: Span | null = null;
  for (const value of values)
    span = span
      ? { min: Math.min(span.min, value), max: Math.max(span.max, value) }
      : { min: value, max: value };
  return span;
}

/** The published menu's items that pass the page's query, in its order, with the counts beside its filters. */
export function queryPage(menu: PublishedMenu, source: PricedMenu, page: PageQuery): PageResult {
  const index = indexOf(source);
  let byId = itemsById.get(menu);
  if (!byId) {
    byId = new Map(menu.items.map((item) => [item.id, item]));
    itemsById.set(menu, byId);
  }
  const { query } = page;
  const { ranked, facets } = index.result(query);
  const whole = index.result(parsePageQuery({}, menu.store).query).facets;
  const rows: Row[] = ranked.map((entry) => entry.row);
  const count = (extra: Partial<MenuQuery>) =>
    rows.filter((row) => matches(row, { ...query, ...extra })).length;
  const prices = (row: Row) => (query.menuType === 'med' ? row.medPrices : row.recPrices);
  return {
    items: rows.flatMap((row) => byId.get(row.id) ?? []),
    types: countsOf(whole.product_type, facets.product_type, PRODUCT_TYPES),
    strains: countsOf(whole.strain_type, facets.strain_type, STRAIN_TYPES),
    onSpecial: count({ onSpecial: true }),
    inStock: count({ inStock: true }),
    thc: spanOf(rows.flatMap((row) => (row.thc ? [row.thc.min, row.thc.max] : []))),
    price: spanOf(rows.flatMap(prices)),
    thcKnown: index.rows.some((row) => row.active && row.thc !== null),
  };
}
