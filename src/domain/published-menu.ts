import { type Static, Type } from 'typebox';
import { toCanonicalRecord } from './canonical.js';
import type { MenuItem } from './item.js';
import { ITEM_FIELDS, PRICE_FIELDS } from './item-schema.js';
import { Nullable } from './nullable.js';
import { STORE_INFO_FIELDS, type StoreInfo, WEEKDAYS, type WeeklyHours } from './store-info.js';

/*
 * What a published dispensary shows the public (the menu page, the board, the embed and their event
 * stream): active items with every canonical field but `active`, each price entry with `in_stock`
 * and its stock quantity only when the dispensary chose to show stock; store information without the
 * license number or e-mail. Never a token, a credential, an inactive item or a hidden quantity.
 */

/** Canonical item fields the public never sees (`active`: only active items are published at all). */
const HIDDEN_ITEM_FIELDS = ['active', 'prices'] as const;
type ShownItemField = Exclude<keyof typeof ITEM_FIELDS, (typeof HIDDEN_ITEM_FIELDS)[number]>;

const SHOWN_ITEM_FIELDS = (Object.keys(ITEM_FIELDS) as (keyof typeof ITEM_FIELDS)[]).filter(
  (name): name is ShownItemField => !(HIDDEN_ITEM_FIELDS as readonly string[]).includes(name),
);

export const PublishedPriceSchema = Type.Object(
  {
    unit: PRICE_FIELDS.unit.schema,
    amount: PRICE_FIELDS.amount.schema,
    price: PRICE_FIELDS.price.schema,
    in_stock: Type.Boolean({ description: 'False when the stock is 0 ("Sold out"); true when not tracked.' }),
    stock: Type.Optional(
      Nullable(Type.Number({ description: 'Sent only by dispensaries that show stock quantities.' })),
    ),
  },
  { additionalProperties: false },
);

export const PublishedItemSchema = Type.Object(
  {
    ...(Object.fromEntries(SHOWN_ITEM_FIELDS.map((name) => [name, ITEM_FIELDS[name].schema])) as {
      [N in ShownItemField]: (typeof ITEM_FIELDS)[N]['schema'];
    }),
    prices: Type.Array(PublishedPriceSchema),
    sold_out: Type.Boolean({ description: 'True when no price entry is in stock.' }),
  },
  { additionalProperties: false },
);

/** The store information a page shows. */
const PUBLISHED_STORE_FIELDS = [
  'name',
  'address',
  'city',
  'state',
  'postal_code',
  'country',
  'phone',
  'website',
  'timezone',
  'currency',
  'logo',
] as const;

const DayHoursSchema = Type.Object({
  open: Nullable(Type.String()),
  close: Nullable(Type.String()),
  closed: Type.Boolean(),
});

export const PublishedStoreSchema = Type.Object(
  {
    name: Type.String(),
    address: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String()),
    postal_code: Nullable(Type.String()),
    country: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    website: Nullable(Type.String()),
    timezone: Nullable(Type.String()),
    currency: Type.String(),
    logo: Nullable(Type.String()),
    hours: Type.Unsafe<WeeklyHours | null>({
      type: ['object', 'null'],
      properties: Object.fromEntries(WEEKDAYS.map((day) => [day, DayHoursSchema])),
    }),
  },
  { additionalProperties: false },
);

export const PublishedMenuSchema = Type.Object(
  {
    slug: Type.String(),
    store: PublishedStoreSchema,
    items: Type.Array(PublishedItemSchema),
    updated_at: Type.String({ description: 'The latest change of the store or an item shown.' }),
  },
  { additionalProperties: false, title: 'PublishedMenu' },
);

export type PublishedPrice = Static<typeof PublishedPriceSchema>;
export type PublishedItem = Static<typeof PublishedItemSchema>;
export type PublishedStore = Static<typeof PublishedStoreSchema>;
export type PublishedMenu = Static<typeof PublishedMenuSchema>;

export function toPublishedStore(info: StoreInfo): PublishedStore {
  const store: Record<string, unknown> = {};
  for (const field of PUBLISHED_STORE_FIELDS) store[field] = info[STORE_INFO_FIELDS[field]];
  store.hours = info.hours;
  return store as PublishedStore;
}

/** One active item as the public sees it (the caller leaves inactive items out). */
export function toPublishedItem(item: MenuItem, showStock: boolean): PublishedItem {
  const record = toCanonicalRecord(item) as Record<string, unknown>;
  const published: Record<string, unknown> = {};
  for (const name of SHOWN_ITEM_FIELDS) published[name] = record[name];
  const prices: PublishedPrice[] = item.prices.map((entry) => {
    const price: PublishedPrice = {
      unit: entry.unit,
      amount: entry.amount,
      price: entry.priceCents / 100,
      in_stock: entry.stock === null || entry.stock > 0,
    };
    if (showStock) price.stock = entry.stock;
    return price;
  });
  published.prices = prices;
  published.sold_out = !prices.some((price) => price.in_stock);
  return published as PublishedItem;
}

/** The published menu: active items only, grouped later by type; `updatedAt` is the latest change. */
export function toPublishedMenu(
  slug: string,
  info: StoreInfo,
  items: readonly MenuItem[],
  showStock: boolean,
): PublishedMenu {
  let updatedAt = info.updatedAt;
  const shown: PublishedItem[] = [];
  for (const item of items) {
    if (!item.active) continue;
    shown.push(toPublishedItem(item, showStock));
    for (const price of item.prices)
      if (price.updatedAt && price.updatedAt > updatedAt) updatedAt = price.updatedAt;
  }
  return { slug, store: toPublishedStore(info), items: shown, updated_at: updatedAt };
}
