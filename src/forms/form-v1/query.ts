import { ServiceError } from '../../services/errors.js';

/** The orders `sort` takes; `-` before one reverses it. Ties are always broken by id, ascending. */
export const SORT_KEYS = ['name', 'price', 'price_per_gram', 'thc', 'updated_at', 'relevance'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** The lists `facets` counts. */
export const FACETS = ['brand', 'product_type', 'strain_type', 'tag'] as const;
export type Facet = (typeof FACETS)[number];

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1_000;

/** A validated `/v1/menu` query. */
export interface MenuQuery {
  productTypes: readonly string[];
  brands: readonly string[];
  strainTypes: readonly string[];
  tags: readonly string[];
  effects: readonly string[];
  ids: readonly number[];
  /** The unit thc_min/max and cbd_min/max (and sort=thc) read: percent by weight, or mg per package. */
  potencyUnit: 'percent' | 'mg';
  thcMin?: number;
  thcMax?: number;
  cbdMin?: number;
  cbdMax?: number;
  priceMin?: number;
  priceMax?: number;
  menuType: 'rec' | 'med';
  onSpecial: boolean;
  inStock: boolean;
  staffPick: boolean;
  active: 'true' | 'false' | 'all';
  updatedSince?: string;
  q?: string;
  /** undefined: by id (or by relevance with `q`). */
  sort?: SortKey;
  descending: boolean;
  limit: number;
  cursor?: string;
  /** Sparse fieldset: top-level names, and `prices.<name>` for the price entries' fields. */
  fields?: readonly string[];
  facets: readonly Facet[];
}

/** The parameters `/v1/menu` takes, each with what it holds (the OpenAPI document and the 400s say it). */
export const REPEATABLE = [
  'product_type',
  'brand',
  'strain_type',
  'tag',
  'effect',
  'ids',
  'fields',
  'facets',
] as const;
export const SINGLE = [
  'potency_unit',
  'thc_min',
  'thc_max',
  'cbd_min',
  'cbd_max',
  'price_min',
  'price_max',
  'menu_type',
  'on_special',
  'in_stock',
  'staff_pick',
  'active',
  'updated_since',
  'q',
  'sort',
  'limit',
  'cursor',
] as const;

const bad = (name: string, message: string, instead: string): ServiceError =>
  new ServiceError('invalid_request', `The query parameter ${name} ${message}. ${instead}`, [
    { field: name, message },
  ]);

/** A repeatable parameter's values: repeated, comma-separated or both; empty parts ignored. */
function listOf(raw: unknown): string[] {
  if (raw === undefined) return [];
  const values = Array.isArray(raw) ? raw : [raw];
  return values
    .flatMap((value) => String(value).split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

function single(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) throw bad(name, 'was sent more than once', 'Send it once.');
  return String(raw);
}

function number(query: Readonly<Record<string, unknown>>, name: string): number | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) {
    throw bad(
      name,
      `is not a number (${JSON.stringify(text)})`,
      'Send a number of at least 0, such as 20 or 12.5.',
    );
  }
  return value;
}

function onlyTrue(query: Readonly<Record<string, unknown>>, name: string): boolean {
  const text = single(query, name);
  if (text === undefined) return false;
  if (text !== 'true') throw bad(name, `is ${JSON.stringify(text)}`, `Send ${name}=true, or leave it out.`);
  return true;
}

function oneOf<T extends string>(
  query: Readonly<Record<string, unknown>>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) {
    throw bad(name, `is ${JSON.stringify(text)}`, `Send one of ${allowed.join(', ')}.`);
  }
  return text as T;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function range(min: number | undefined, max: number | undefined, name: string): void {
  if (min !== undefined && max !== undefined && min > max) {
    throw bad(
      `${name}_min`,
      `(${min}) is above ${name}_max (${max})`,
      `Send ${name}_min at most ${name}_max.`,
    );
  }
}

/**
 * The query of a `/v1/menu` request (its query string, as Fastify parsed it: a repeated parameter is an
 * array), each parameter checked; the first bad one is refused with 400 naming it. Unknown parameters
 * are refused before this runs (src/forms/endpoints/endpoint.ts).
 */
export function parseMenuQuery(
  query: Readonly<Record<string, unknown>>,
  fieldNames: ReadonlySet<string>,
): MenuQuery {
  const ids = listOf(query.ids).map((text) => {
    if (!/^[1-9]\d{0,15}$/.test(text)) {
      throw bad(
        'ids',
        `holds ${JSON.stringify(text)}, which is not an item id`,
        'Send item ids (whole numbers), comma-separated.',
      );
    }
    return Number(text);
  });
  const sortText = single(query, 'sort');
  let sort: SortKey | undefined;
  let descending = false;
  if (sortText !== undefined) {
    descending = sortText.startsWith('-');
    const key = descending ? sortText.slice(1) : sortText;
    if (!(SORT_KEYS as readonly string[]).includes(key)) {
      throw bad(
        'sort',
        `is ${JSON.stringify(sortText)}`,
        `Send one of ${SORT_KEYS.join(', ')}, with - before it for descending.`,
      );
    }
    sort = key as SortKey;
  }
  const q = single(query, 'q')?.trim();
  if (q !== undefined && q.length > 200) throw bad('q', 'is longer than 200 characters', 'Send fewer words.');
  if (sort === 'relevance' && !q)
    throw bad('sort', 'is relevance without q', 'Send q=<words> with sort=relevance.');
  const limitText = single(query, 'limit');
  let limit = DEFAULT_LIMIT;
  if (limitText !== undefined) {
    limit = /^\d{1,5}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) {
      throw bad('limit', `is ${JSON.stringify(limitText)}`, `Send a whole number from 1 to ${MAX_LIMIT}.`);
    }
  }
  const updatedSince = single(query, 'updated_since');
  if (
    updatedSince !== undefined &&
    !(RFC3339.test(updatedSince) && Number.isFinite(Date.parse(updatedSince)))
  ) {
    throw bad(
      'updated_since',
      `is ${JSON.stringify(updatedSince)}`,
      'Send an RFC 3339 time such as 2026-11-25T12:00:00Z.',
    );
  }
  const fields = query.fields === undefined ? undefined : listOf(query.fields);
  for (const field of fields ?? []) {
    if (!fieldNames.has(field)) {
      throw bad(
        'fields',
        `names ${JSON.stringify(field)}, which is not a field of the item`,
        `Send field names such as id,name,prices.price.`,
      );
    }
  }
  const facets = listOf(query.facets).map((facet) => {
    if (!(FACETS as readonly string[]).includes(facet)) {
      throw bad('facets', `names ${JSON.stringify(facet)}`, `Send any of ${FACETS.join(', ')}.`);
    }
    return facet as Facet;
  });
  const parsed: MenuQuery = {
    productTypes: listOf(query.product_type),
    brands: listOf(query.brand),
    strainTypes: listOf(query.strain_type),
    tags: listOf(query.tag),
    effects: listOf(query.effect),
    ids,
    potencyUnit: oneOf(query, 'potency_unit', ['percent', 'mg'] as const) ?? 'percent',
    thcMin: number(query, 'thc_min'),
    thcMax: number(query, 'thc_max'),
    cbdMin: number(query, 'cbd_min'),
    cbdMax: number(query, 'cbd_max'),
    priceMin: number(query, 'price_min'),
    priceMax: number(query, 'price_max'),
    menuType: oneOf(query, 'menu_type', ['rec', 'med'] as const) ?? 'rec',
    onSpecial: onlyTrue(query, 'on_special'),
    inStock: onlyTrue(query, 'in_stock'),
    staffPick: onlyTrue(query, 'staff_pick'),
    active: oneOf(query, 'active', ['true', 'false', 'all'] as const) ?? 'true',
    updatedSince: updatedSince === undefined ? undefined : new Date(updatedSince).toISOString(),
    q: q === '' ? undefined : q,
    sort,
    descending,
    limit,
    cursor: single(query, 'cursor'),
    fields,
    facets,
  };
  range(parsed.thcMin, parsed.thcMax, 'thc');
  range(parsed.cbdMin, parsed.cbdMax, 'cbd');
  range(parsed.priceMin, parsed.priceMax, 'price');
  return parsed;
}

/** Each query's orderKey, made once: a page asks for it for its result, its cursor and its print. */
const orderKeys = new WeakMap<MenuQuery, string>();

/**
 * What a cursor is bound to: every part of the query that decides which items are listed and in which
 * order (not `limit`, `fields` or `facets`, which a client may change between pages).
 */
export function orderKey(query: MenuQuery): string {
  let key = orderKeys.get(query);
  if (key === undefined) {
    const { limit: _limit, cursor: _cursor, fields: _fields, facets: _facets, ...order } = query;
    key = JSON.stringify(order);
    orderKeys.set(query, key);
  }
  return key;
}
