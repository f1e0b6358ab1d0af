import type { Selectable } from 'kysely';
import type { MenuItem, MenuItemInput, PriceEntry, ProductType, Unit } from '../domain/item.js';
import type { StoreInfo, WeeklyHours } from '../domain/store-info.js';
import type { Database } from './schema.js';
import type { AdminKey, AuditEntry, Credential, Dispensary } from './store.js';

/** Mapping between table rows and the model. Numbers go through Number() because drivers differ on bigint. */

export const nullableNumber = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

export function toDispensary(row: {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
}): Dispensary {
  return { id: Number(row.id), name: row.name, createdAt: row.created_at, updatedAt: row.updated_at };
}

export function toCredential(row: Selectable<Database['credentials']>): Credential {
  return {
    id: Number(row.id),
    username: row.username,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    dispensaryIds: row.dispensary_ids === null ? null : (JSON.parse(row.dispensary_ids) as number[]),
  };
}

export function toAdminKey(row: {
  id: number;
  name: string;
  scope: string;
  created_at: string;
  revoked_at: string | null;
}): AdminKey {
  return {
    id: Number(row.id),
    name: row.name,
    scope: row.scope,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export function toAuditEntry(row: Selectable<Database['audit_log']>): AuditEntry {
  return {
    id: Number(row.id),
    at: row.at,
    actor: row.actor,
    dispensaryId: row.dispensary_id === null ? null : Number(row.dispensary_id),
    action: row.action,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
  };
}

export const STORE_INFO_COLUMNS = [
  'name',
  'address',
  'city',
  'state',
  'postal_code',
  'country',
  'phone',
  'email',
  'website',
  'timezone',
  'license_number',
  'currency',
  'hours',
  'logo',
  'updated_at',
] as const;

type StoreInfoRow = Pick<Database['dispensaries'], (typeof STORE_INFO_COLUMNS)[number]>;

export function toStoreInfo(row: StoreInfoRow): StoreInfo {
  return {
    name: row.name,
    address: row.address,
    city: row.city,
    state: row.state,
    postalCode: row.postal_code,
    country: row.country,
    phone: row.phone,
    email: row.email,
    website: row.website,
    timezone: row.timezone,
    licenseNumber: row.license_number,
    currency: row.currency,
    hours: row.hours === null ? null : (JSON.parse(row.hours) as WeeklyHours),
    logo: row.logo,
    updatedAt: row.updated_at,
  };
}

/** Column values for the store fields a patch sets. */
export function storeInfoColumns(patch: Partial<StoreInfo>): Partial<StoreInfoRow> {
  const columns: Partial<StoreInfoRow> = {};
  const set = <K extends keyof StoreInfoRow>(column: K, value: StoreInfoRow[K] | undefined) => {
    if (value !== undefined) columns[column] = value;
  };
  set('name', patch.name);
  set('address', patch.address);
  set('city', patch.city);
  set('state', patch.state);
  set('postal_code', patch.postalCode);
  set('country', patch.country);
  set('phone', patch.phone);
  set('email', patch.email);
  set('website', patch.website);
  set('timezone', patch.timezone);
  set('license_number', patch.licenseNumber);
  set('currency', patch.currency);
  if (patch.hours !== undefined) columns.hours = patch.hours === null ? null : JSON.stringify(patch.hours);
  set('logo', patch.logo);
  return columns;
}

export function itemRow(dispensaryId: number, item: MenuItem, at: string): Database['items'] {
  return {
    dispensary_id: dispensaryId,
    id: item.id,
    name: item.name,
    brand: item.brand,
    product_type: item.productType,
    product_subtype: item.productSubtype,
    description: item.description,
    image: item.image,
    cbd: item.cbd,
    cbn: item.cbn,
    thc: item.thc,
    total_thc: item.totalThc,
    total_cbd: item.totalCbd,
    flavors: JSON.stringify(item.flavors),
    effects: JSON.stringify(item.effects),
    conditions: JSON.stringify(item.conditions),
    active: item.active ? 1 : 0,
    updated_at: at,
  };
}

/** A price entry's identity within a dispensary: stock updates and change times follow it. */
export const priceKey = (itemId: number, unit: string, amount: number) => `${itemId}|${unit}|${amount}`;

export interface PreviousPrice {
  priceCents: number;
  stock: number | null;
  updatedAt: string;
  /** Whether the entry's item was active: an item that comes back counts as a change of its entries. */
  active: boolean;
}

/**
 * Price rows for items being written. An entry whose price and stock did not change keeps its
 * change time, so that an inventory poll with `since` sees only real changes after a full sync.
 */
export function priceRows(
  dispensaryId: number,
  item: MenuItem,
  at: string,
  previous: Map<string, PreviousPrice>,
): Database['price_entries'][] {
  return item.prices.map((price, position) => {
    const before = previous.get(priceKey(item.id, price.unit, price.amount));
    const unchanged =
      before &&
      before.priceCents === price.priceCents &&
      before.stock === price.stock &&
      before.active === item.active;
    return {
      dispensary_id: dispensaryId,
      item_id: item.id,
      position,
      unit: price.unit,
      amount: price.amount,
      price_cents: price.priceCents,
      stock: price.stock,
      updated_at: unchanged ? before.updatedAt : at,
    };
  });
}

export const MENU_ITEM_COLUMNS = [
  'id',
  'name',
  'brand',
  'product_type',
  'product_subtype',
  'description',
  'image',
  'cbd',
  'cbn',
  'thc',
  'total_thc',
  'total_cbd',
  'flavors',
  'effects',
  'conditions',
  'active',
] as const;

export const MENU_PRICE_COLUMNS = [
  'item_id',
  'unit',
  'amount',
  'price_cents',
  'stock',
  'updated_at',
] as const;

/** Each column's position in a row read as an array, from the list the query selects. */
function columnIndexes<const C extends readonly string[]>(columns: C): Readonly<Record<C[number], number>> {
  return Object.fromEntries(columns.map((column, index) => [column, index])) as Record<C[number], number>;
}

const ITEM = columnIndexes(MENU_ITEM_COLUMNS);
const PRICE = columnIndexes(MENU_PRICE_COLUMNS);

type Items = Database['items'];
type Prices = Database['price_entries'];

/**
 * Folds a menu's items (ordered by id) and its price entries (ordered by item id, then position), rows
 * as arrays of MENU_ITEM_COLUMNS and MENU_PRICE_COLUMNS values, into items, in one pass over both:
 * each item takes the entries that follow, up to the next item's.
 */
export function foldMenu(items: readonly unknown[][], prices: readonly unknown[][]): MenuItem[] {
  let next = 0;
  return items.map((row) => {
    const id = Number(row[ITEM.id]);
    const entries: PriceEntry[] = [];
    // `<=`, not `===`: an entry whose item is not in the list is passed over, as a join would.
    for (; next < prices.length && Number(prices[next]![PRICE.item_id]) <= id; next++) {
      const price = prices[next]!;
      if (Number(price[PRICE.item_id]) !== id) continue;
      entries.push({
        unit: price[PRICE.unit] as Unit,
        amount: Number(price[PRICE.amount]),
        priceCents: Number(price[PRICE.price_cents]),
        stock: nullableNumber(price[PRICE.stock] as Prices['stock']),
        updatedAt: price[PRICE.updated_at] as Prices['updated_at'],
      });
    }
    return {
      id,
      name: row[ITEM.name] as Items['name'],
      brand: row[ITEM.brand] as Items['brand'],
      productType: row[ITEM.product_type] as ProductType,
      productSubtype: row[ITEM.product_subtype] as Items['product_subtype'],
      description: row[ITEM.description] as Items['description'],
      image: row[ITEM.image] as Items['image'],
      cbd: nullableNumber(row[ITEM.cbd] as Items['cbd']),
      cbn: nullableNumber(row[ITEM.cbn] as Items['cbn']),
      thc: nullableNumber(row[ITEM.thc] as Items['thc']),
      totalThc: nullableNumber(row[ITEM.total_thc] as Items['total_thc']),
      totalCbd: nullableNumber(row[ITEM.total_cbd] as Items['total_cbd']),
      flavors: JSON.parse(row[ITEM.flavors] as Items['flavors']) as string[],
      effects: JSON.parse(row[ITEM.effects] as Items['effects']) as string[],
      conditions: JSON.parse(row[ITEM.conditions] as Items['conditions']) as string[],
      active: Number(row[ITEM.active]) === 1,
      prices: entries,
    };
  });
}

/** Gives every item without an id a fresh one, after every id the dispensary has used or is writing. */
export function assignIds(items: MenuItemInput[], highestExisting: number): MenuItem[] {
  let nextId = Math.max(highestExisting, ...items.map((item) => item.id ?? 0)) + 1;
  return items.map((item) => ({ ...item, id: item.id ?? nextId++ })).sort((a, b) => a.id - b.id);
}
