/**
 * What Form v1 (`/v1`) answers and the filters `/v1/menu` takes, typed from the schemas and parameter
 * lists the server uses. Every import here is `import type`: nothing of the server is loaded at run time.
 */
import type { Static } from 'typebox';
import type { Unit } from '../domain/item-vocabulary.js';
import type { WireChange } from '../forms/common/changes.js';
import type { PublicSpecialSchema } from '../forms/common/specials.js';
import type { V1ItemSchema, V1MenuSchema } from '../forms/form-v1/item.js';
import type { Facet, SortKey } from '../forms/form-v1/query.js';

type WithUnitPrices<T> = T extends { prices: (infer P)[] }
  ? Omit<T, 'prices'> & { prices: (Omit<P, 'unit'> & { unit: Unit })[] }
  : T;

/** An item as Form v1 sends it: the canonical item, every field, with the derived figures and effective prices. */
export type V1Item = WithUnitPrices<Static<typeof V1ItemSchema>>;

/** An item of a page asked for with `fields`: only the fields named (the rest absent). */
export type V1ItemFields = Static<typeof V1MenuSchema>['data'][number];

export type V1Facet = Facet;
/** `sort`: a key, `-` before it for descending. */
export type V1Sort = SortKey | `-${SortKey}`;

/** One value, or several (any of them). */
type OneOrMany<T> = T | readonly T[];

/**
 * The filters, search, order and paging of `GET /v1/menu` (docs/v1.md), each as the server's parameter
 * of the same name. A boolean filter left out or false does not filter.
 */
export interface V1MenuQuery {
  product_type?: OneOrMany<string>;
  brand?: OneOrMany<string>;
  strain_type?: OneOrMany<string>;
  tag?: OneOrMany<string>;
  effect?: OneOrMany<string>;
  ids?: OneOrMany<number>;
  /** The unit of thc_min/max, cbd_min/max and sort=thc: percent by weight (default) or mg per package. */
  potency_unit?: 'percent' | 'mg';
  thc_min?: number;
  thc_max?: number;
  cbd_min?: number;
  cbd_max?: number;
  /** Effective prices (under the specials now); `menu_type` chooses adult-use or medical. */
  price_min?: number;
  price_max?: number;
  menu_type?: 'rec' | 'med';
  on_special?: boolean;
  in_stock?: boolean;
  staff_pick?: boolean;
  /** true (default): active items; false: inactive ones; 'all': both. */
  active?: boolean | 'all';
  /** Only items with a price entry changed after this time (a Date or an RFC 3339 string). */
  updated_since?: string | Date;
  /** Full-text search: every word must match, the last as the start of a word. */
  q?: string;
  sort?: V1Sort;
  /** Items per page, 1 to 1,000 (default 100). */
  limit?: number;
  /** The `next_cursor` of the previous page of the same query. */
  cursor?: string;
  /** Sparse fieldset: top-level names, `prices.<name>` for a price entry's. */
  fields?: readonly string[];
  facets?: readonly V1Facet[];
}

/** One page of `/v1/menu`: `data` holds whole items, or with `fields` only the fields asked for. */
export interface V1MenuPage<I = V1Item> {
  data: I[];
  /** The next page's cursor; null on the last page. */
  next_cursor: string | null;
  /** How many items the query matches, over every page. */
  total: number;
  /** For each list named in `facets`, how many matching items have each value. */
  facets: Partial<Record<V1Facet, Record<string, number>>>;
}

/** The items of a page for query Q: whole items, unless Q may name `fields`. */
export type V1ItemOf<Q extends V1MenuQuery> = 'fields' extends keyof Q
  ? Q['fields' & keyof Q] extends undefined
    ? V1Item
    : V1ItemFields
  : V1Item;

/** A special as `/v1/specials` lists it, with its targets and schedule. */
export type V1Special = Static<typeof PublicSpecialSchema>;

/** A change of the live feed (`/v1/changes`): `item` in Form v1's shape on item.upserted, else null. */
export type V1Change = Omit<WireChange, 'item'> & { item: V1Item | null };

/** A page of `/v1/changes`, oldest first: send `next_cursor` as the next call's cursor. */
export interface V1ChangesPage {
  changes: V1Change[];
  next_cursor: string;
  /** More changes are waiting: ask again at once with next_cursor. */
  has_more: boolean;
}
