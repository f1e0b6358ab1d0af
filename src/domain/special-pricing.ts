import type { MenuItem } from './item.js';
import { activeUntil } from './special-schedule.js';
import type { Special, SpecialKind } from './special-schema.js';

// The price people pay now: each price entry's best special (the lowest price; specials do not stack).

/** The special an entry's effective price comes from, as the sync API shows it. */
export interface AppliedSpecial {
  id: number;
  name: string;
  /** When it stops applying (its end, or the end of today's window); null: no end. */
  endsAt: string | null;
}

export interface EntryPrice {
  effectivePriceCents: number;
  special: AppliedSpecial | null;
}

/** An item as specials target it: by id, the point of sale's id, brand, product type or tag. */
export type TargetedItem = Pick<MenuItem, 'id' | 'brand' | 'productType' | 'prices' | 'tags' | 'externalId'>;

/** A special in force, with its targets made ready for matching many items. */
interface InForce {
  special: Special;
  applied: AppliedSpecial;
  itemIds: ReadonlySet<number>;
  externalIds: ReadonlySet<string>;
  brands: ReadonlySet<string>;
  productTypes: ReadonlySet<string>;
  tags: ReadonlySet<string>;
}

const folded = (values: readonly string[]) => new Set(values.map((value) => value.trim().toLowerCase()));

/** The price a special makes of a price (cents); never below zero. */
export function specialPrice(kind: SpecialKind, valueHundredths: number, priceCents: number): number {
  switch (kind) {
    case 'percent_off':
      return Math.round((priceCents * (10_000 - valueHundredths)) / 10_000);
    case 'amount_off':
      return Math.max(0, priceCents - valueHundredths);
    case 'fixed_price':
      return valueHundredths;
  }
}

/**
 * The pricing of a dispensary's items at instant `at` (ms) in the store's zone, under its specials.
 * Only the recreational price (`price`) exists today: specials for `rec` or `both` lower it; a `med`
 * special applies to medical prices only.
 */
export class MenuPricing {
  private readonly inForce: InForce[];

  constructor(specials: readonly Special[], zone: string | null, at: number) {
    this.inForce = specials
      .filter((special) => special.menuType !== 'med')
      .flatMap((special) => {
        const until = activeUntil(special, zone, at);
        if (until === undefined) return [];
        const targets = special.appliesTo;
        return [
          {
            special,
            applied: {
              id: special.id,
              name: special.name,
              endsAt: until === null ? null : new Date(until).toISOString(),
            },
            itemIds: new Set(targets.itemIds),
            externalIds: new Set(targets.externalIds),
            brands: folded(targets.brands),
            productTypes: folded(targets.productTypes),
            tags: folded(targets.tags),
          },
        ];
      })
      .sort((a, b) => a.special.id - b.special.id);
  }

  /** The specials in force at the instant, by id. */
  get specialIds(): number[] {
    return this.inForce.map((entry) => entry.special.id);
  }

  /** Each price entry's effective price and the special it comes from, in the item's entry order. */
  entries(item: TargetedItem): EntryPrice[] {
    const matching = this.inForce.filter((entry) => matches(entry, item));
    return item.prices.map((price) => {
      let best: EntryPrice = { effectivePriceCents: price.priceCents, special: null };
      for (const entry of matching) {
        const cents = specialPrice(entry.special.kind, entry.special.valueHundredths, price.priceCents);
        // Lower only: a special that would not lower this price does not apply to it.
        if (cents < best.effectivePriceCents) best = { effectivePriceCents: cents, special: entry.applied };
      }
      return best;
    });
  }
}

function matches(entry: InForce, item: TargetedItem): boolean {
  return (
    entry.itemIds.has(item.id) ||
    (item.externalId !== '' && entry.externalIds.has(item.externalId)) ||
    entry.brands.has(item.brand.trim().toLowerCase()) ||
    entry.productTypes.has(item.productType.toLowerCase()) ||
    item.tags.some((tag) => entry.tags.has(tag.trim().toLowerCase()))
  );
}

/** The ids of the items whose pricing differs between two pricings (an effective price or its special). */
export function repricedItems(
  items: readonly TargetedItem[],
  before: MenuPricing,
  after: MenuPricing,
): number[] {
  const key = (entries: EntryPrice[]) =>
    entries
      .map(
        (entry) => `${entry.effectivePriceCents}:${entry.special?.id ?? ''}:${entry.special?.endsAt ?? ''}`,
      )
      .join(',');
  return items
    .filter((item) => key(before.entries(item)) !== key(after.entries(item)))
    .map((item) => item.id);
}
