import { Type } from 'typebox';
import { LIMITS } from './field-kinds.js';
import type { MenuItem } from './item.js';
import {
  ITEM_READ_EXAMPLE,
  type ItemRead,
  ItemReadSchema,
  PriceReadSchema,
  toItemRead,
} from './item-reads.js';
import { fromCents } from './money.js';
import { Nullable } from './nullable.js';
import type { AppliedSpecial, MenuPricing } from './special-pricing.js';

/*
 * An item as read with the price people pay now: the item as read (its canonical record and derived
 * figures), each price entry with its effective prices and the specials they come from
 * (special-pricing.ts decides them). The sync API's menu read and Form v1 send it alike.
 */

/** The special a price entry's effective price comes from. */
export const AppliedSpecialSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    ends_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When it stops applying: its end, or the end of today’s window; null: no end.',
      }),
    ),
  },
  { additionalProperties: false, title: 'AppliedSpecial' },
);

/** A price entry as read, with the price people pay now. */
export const PricedEntrySchema = Type.Object(
  {
    ...PriceReadSchema.properties,
    effective_price: Type.Number({
      minimum: 0,
      description:
        'The price now: price lowered by the best special that applies (they do not stack), or price.',
    }),
    special: Nullable({
      ...AppliedSpecialSchema,
      description: 'The special effective_price comes from; null when it is price as written.',
    }),
    effective_med_price: Nullable(
      Type.Number({
        minimum: 0,
        description:
          'The medical price now: med_price lowered by the best special for med or both (they do not stack), or med_price; null when the entry has no med_price.',
      }),
    ),
    med_special: Nullable({
      ...AppliedSpecialSchema,
      description: 'The special effective_med_price comes from; null when none applies.',
    }),
  },
  { additionalProperties: false, title: 'PricedEntry' },
);

/** The one example item, its first entry under a special (the example of every priced item schema). */
export const PRICED_ITEM_EXAMPLE = {
  ...ITEM_READ_EXAMPLE,
  prices: ITEM_READ_EXAMPLE.prices.map((price, index) =>
    index === 0
      ? {
          ...price,
          effective_price: 9.6,
          special: { id: 1, name: 'Happy hour', ends_at: '2026-04-20T01:00:00.000Z' },
          effective_med_price: price.med_price === null ? null : Math.round(price.med_price * 80) / 100,
          med_special:
            price.med_price === null
              ? null
              : { id: 1, name: 'Happy hour', ends_at: '2026-04-20T01:00:00.000Z' },
        }
      : {
          ...price,
          effective_price: price.price,
          special: null,
          effective_med_price: price.med_price,
          med_special: null,
        },
  ),
};

/** An item as read, each price entry with its effective price. */
export const PricedItemSchema = Type.Object(
  {
    ...ItemReadSchema.properties,
    prices: Type.Array(PricedEntrySchema, { maxItems: LIMITS.pricesPerItem }),
  },
  {
    additionalProperties: false,
    title: 'PricedItem',
    description:
      'A canonical item as the sync API reads it (ItemRead), each price entry with its effective price now.',
    examples: [PRICED_ITEM_EXAMPLE],
  },
);

/** The special a price comes from, as the API shows it; null when none. */
function appliedSpecialRecord(special: AppliedSpecial | null) {
  return special && { id: special.id, name: special.name, ends_at: special.endsAt };
}

/**
 * An item as read, priced by `pricing` (a dispensary's specials at an instant): each price entry with
 * the price people pay now (`effective_price`) and the special it comes from (null: the price as written).
 */
export function pricedItemRecord(item: MenuItem, pricing: MenuPricing) {
  const read = toItemRead(item);
  const entries = pricing.entries(item);
  // ItemRead intersects two price entry types: each entry is both (it has the derived figures).
  const prices: ItemRead['prices'][number][] = read.prices;
  return {
    ...read,
    prices: prices.map((price, index) => {
      const { effectivePriceCents, special, effectiveMedPriceCents, medSpecial } = entries[index]!;
      return {
        ...price,
        effective_price: fromCents(effectivePriceCents),
        special: appliedSpecialRecord(special),
        effective_med_price: effectiveMedPriceCents === null ? null : fromCents(effectiveMedPriceCents),
        med_special: appliedSpecialRecord(medSpecial),
      };
    }),
  };
}

export type PricedItemRecord = ReturnType<typeof pricedItemRecord>;
