import { type Static, Type } from 'typebox';
import { toCanonicalRecord } from './canonical.js';
import type { MenuItem } from './item.js';
import { headlinePotency, netWeightGrams, PotencySchema } from './item-reads.js';
import { ITEM_FIELDS, PRICE_FIELDS } from './item-schema.js';
import { fromCents } from './money.js';
import { Nullable } from './nullable.js';
import type { Publishing } from './publishing.js';
import type { AppliedSpecial, EntryPrice, MenuPricing } from './special-pricing.js';
import { MENU_TYPES, STORE_INFO_FIELDS, type StoreInfo, WEEKDAYS, type WeeklyHours } from './store-info.js';

/*
 * What a published dispensary shows the public (the menu page, the board, the embed and their event
 * stream): active items with every canonical field but `active`, each price entry with `in_stock`
 * and its stock quantity only when the dispensary chose to show stock; store information without the
 * license number or e-mail. Never a token, a credential, an inactive item or a hidden quantity.
 * Prices are what people pay now, under the specials in force (special-pricing.ts); the regular price
 * beside a special's is published only when the store shows it (`show_regular_price`): a store that
 * turned it off has it in no public answer, so no surface, script or structured data can show it. The
 * headline potency is published only when the store shows potency (`show_potency`); the lab results
 * themselves (cannabinoids, the certificate) stay, and the surfaces show no potency badge then.
 */

/** Canonical item fields the public never sees (`active`: only active items are published at all). */
const HIDDEN_ITEM_FIELDS = ['active', 'prices'] as const;
type ShownItemField = Exclude<keyof typeof ITEM_FIELDS, (typeof HIDDEN_ITEM_FIELDS)[number]>;

const SHOWN_ITEM_FIELDS = (Object.keys(ITEM_FIELDS) as (keyof typeof ITEM_FIELDS)[]).filter(
  (name): name is ShownItemField => !(HIDDEN_ITEM_FIELDS as readonly string[]).includes(name),
);

/** The special a published price comes from: its name and when it stops applying (null: no end). */
const PublishedSpecialSchema = Nullable(
  Type.Object(
    { name: Type.String(), ends_at: Nullable(Type.String({ description: 'ISO 8601, UTC.' })) },
    { additionalProperties: false },
  ),
);

const REGULAR =
  'The price before the special; sent only when a special lowers it and the store shows regular prices.';

export const PublishedPriceSchema = Type.Object(
  {
    unit: PRICE_FIELDS.unit.schema,
    amount: PRICE_FIELDS.amount.schema,
    label: PRICE_FIELDS.label.schema,
    net_weight_g: Nullable(Type.Number({ description: 'Grams (1 oz = 28 g); null for unit.' })),
    price: Type.Number({ description: 'The adult-use price people pay now (under a special, its price).' }),
    special: PublishedSpecialSchema,
    regular_price: Type.Optional(Type.Number({ description: REGULAR })),
    med_price: Type.Optional(
      Type.Number({
        description:
          'Stores selling medical: the medical price people pay now (the shelf price when the entry has none).',
      }),
    ),
    med_special: Type.Optional(PublishedSpecialSchema),
    regular_med_price: Type.Optional(Type.Number({ description: REGULAR })),
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
    potency: Nullable(PotencySchema),
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
    menu_types: Type.Array(Type.Unsafe<'rec' | 'med'>({ type: 'string', enum: [...MENU_TYPES] }), {
      description: 'The menus it sells from: ["rec"] (also when the store has not said), ["med"] or both.',
    }),
    show_regular_price: Type.Boolean(),
    show_potency: Type.Boolean(),
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

/** What of a dispensary's publishing settings shapes its published menu. */
export type PublishedSwitches = Pick<Publishing, 'showStock' | 'showRegularPrice' | 'showPotency'>;

export function toPublishedStore(info: StoreInfo, switches: PublishedSwitches): PublishedStore {
  const store: Record<string, unknown> = {};
  for (const field of PUBLISHED_STORE_FIELDS) store[field] = info[STORE_INFO_FIELDS[field]];
  store.menu_types = info.menuTypes ?? ['rec'];
  store.show_regular_price = switches.showRegularPrice;
  store.show_potency = switches.showPotency;
  store.hours = info.hours;
  return store as PublishedStore;
}

const specialOf = (special: AppliedSpecial | null) =>
  special && { name: special.name, ends_at: special.endsAt };

/**
 * One active item as the public sees it (the caller leaves inactive items out), priced by `pricing`
 * (the store's specials now). `medical`: the store sells from a medical menu; an entry without a
 * medical price sells at its shelf price there ("null when it is price"), which specials leave as it is
 * (as the sync API's effective_med_price, and the feed at a special's boundaries, have it).
 */
export function toPublishedItem(
  item: MenuItem,
  switches: PublishedSwitches,
  pricing: MenuPricing,
  medical: boolean,
): PublishedItem {
  const record = toCanonicalRecord(item) as Record<string, unknown>;
  const published: Record<string, unknown> = {};
  for (const name of SHOWN_ITEM_FIELDS) published[name] = record[name];
  const entries: EntryPrice[] = pricing.entries(item);
  const prices: PublishedPrice[] = item.prices.map((entry, index) => {
    const now = entries[index]!;
    // Built in the order of the schema (JSON keeps it): the optional parts come before in_stock.
    const price: Record<string, unknown> = {
      unit: entry.unit,
      amount: entry.amount,
      label: entry.label,
      net_weight_g: netWeightGrams(entry.unit, entry.amount),
      price: fromCents(now.effectivePriceCents),
      special: specialOf(now.special),
    };
    if (now.special && switches.showRegularPrice) price.regular_price = fromCents(entry.priceCents);
    if (medical) {
      price.med_price = fromCents(now.effectiveMedPriceCents ?? entry.priceCents);
      price.med_special = specialOf(now.medSpecial);
      if (now.medSpecial && entry.medPriceCents !== null && switches.showRegularPrice)
        price.regular_med_price = fromCents(entry.medPriceCents);
    }
    price.in_stock = entry.stock === null || entry.stock > 0;
    if (switches.showStock) price.stock = entry.stock;
    return price as PublishedPrice;
  });
  published.potency = switches.showPotency ? headlinePotency(item.cannabinoids) : null;
  published.prices = prices;
  published.sold_out = !prices.some((price) => price.in_stock);
  return published as PublishedItem;
}

/** The published menu: active items only, grouped later by type; `updatedAt` is the latest change. */
export function toPublishedMenu(
  slug: string,
  info: StoreInfo,
  items: readonly MenuItem[],
  switches: PublishedSwitches,
  pricing: MenuPricing,
): PublishedMenu {
  let updatedAt = info.updatedAt;
  const store = toPublishedStore(info, switches);
  const medical = store.menu_types.includes('med');
  const shown: PublishedItem[] = [];
  for (const item of items) {
    if (!item.active) continue;
    shown.push(toPublishedItem(item, switches, pricing, medical));
    for (const price of item.prices)
      if (price.updatedAt && price.updatedAt > updatedAt) updatedAt = price.updatedAt;
  }
  return { slug, store, items: shown, updated_at: updatedAt };
}
