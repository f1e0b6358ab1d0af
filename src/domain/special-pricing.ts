import type { MenuItem, PriceEntry } from './item.js';
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

/** An entry's prices now: the adult-use price (`price`) and, when the entry has one, the medical price. */
export interface EntryPrice {
  effectivePriceCents: number;
  special: AppliedSpecial | null;
  /** null when the entry has no medical price. */
  effectiveMedPriceCents: number | null;
  medSpecial: AppliedSpecial | null;
}

/** An item as specials target it: by id, the point of sale's id, brand, product type or tag. */
export type SpecialTarget = Pick<MenuItem, 'id' | 'brand' | 'productType' | 'tags' | 'externalId'>;

/**
 * An item as specials target it and price it (its entries' prices): all a boundary needs to read of
 * each item.
 */
export type TargetedItem = SpecialTarget & {
  prices: readonly Pick<PriceEntry, 'priceCents' | 'medPriceCents'>[];
};

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
 * Specials for `rec` or `both` lower the adult-use price (`price`), those for `med` or `both` the
 * medical price (`med_price`, when the entry has one); each price takes its own best special.
 */
export class MenuPricing {
  private readonly inForce: InForce[];

  constructor(specials: readonly Special[], zone: string | null, at: number) {
    this.inForce = specials
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

  private printKept?: string;

  /**
   * A text two pricings share when they price every item alike: the specials in force (each whole) and
   * when each stops applying. Lets what is made of an item's prices be kept from one menu version to the
   * next (src/forms/form-v1/engine.ts).
   */
  get print(): string {
    this.printKept ??= JSON.stringify(this.inForce.map((entry) => [entry.special, entry.applied]));
    return this.printKept;
  }

  /** The specials in force at the instant, by id. */
  get specialIds(): number[] {
    return this.inForce.map((entry) => entry.special.id);
  }

  /**
   * Which items may show otherwise under `other` than under this pricing: only those that a special in
   * force on one side only, or on both but not alike, targets; an item that none of them targets is
   * priced alike on both sides (its prices come from the same specials). Made once for a menu's
   * items: at a boundary one special of many, and most items not even matched against it.
   */
  mayDifferFrom(other: MenuPricing): (item: SpecialTarget) => boolean {
    const keyOf = (entry: InForce) => JSON.stringify([entry.special, entry.applied]);
    const mine = new Set(this.inForce.map(keyOf));
    const theirs = new Set(other.inForce.map(keyOf));
    const differing = [
      ...this.inForce.filter((entry) => !theirs.has(keyOf(entry))),
      ...other.inForce.filter((entry) => !mine.has(keyOf(entry))),
    ];
    return (item) => differing.some((entry) => matches(entry, item));
  }

  /** Each price entry's effective prices and the specials they come from, in the item's entry order. */
  entries(item: TargetedItem): EntryPrice[] {
    const matching = this.inForce.filter((entry) => matches(entry, item));
    const rec = matching.filter((entry) => entry.special.menuType !== 'med');
    const med = matching.filter((entry) => entry.special.menuType !== 'rec');
    return item.prices.map((price) => {
      const adultUse = bestPrice(rec, price.priceCents);
      const medical = price.medPriceCents === null ? null : bestPrice(med, price.medPriceCents);
      return {
        effectivePriceCents: adultUse.cents,
        special: adultUse.special,
        effectiveMedPriceCents: medical?.cents ?? null,
        medSpecial: medical?.special ?? null,
      };
    });
  }
}

/** The lowest price the specials make of `cents`, and the special that makes it (specials do not stack). */
function bestPrice(
  specials: readonly InForce[],
  cents: number,
): { cents: number; special: AppliedSpecial | null } {
  let best: { cents: number; special: AppliedSpecial | null } = { cents, special: null };
  for (const entry of specials) {
    const lowered = specialPrice(entry.special.kind, entry.special.valueHundredths, cents);
    // Lower only: a special that would not lower this price does not apply to it.
    if (lowered < best.cents) best = { cents: lowered, special: entry.applied };
  }
  return best;
}

function matches(entry: InForce, item: SpecialTarget): boolean {
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
  const applied = (special: AppliedSpecial | null) => `${special?.id ?? ''}:${special?.endsAt ?? ''}`;
  const key = (entries: EntryPrice[]) =>
    entries
      .map(
        (entry) =>
          `${entry.effectivePriceCents}:${applied(entry.special)}:${entry.effectiveMedPriceCents}:${applied(entry.medSpecial)}`,
      )
      .join(',');
  // Priced on both sides only where a special that differs targets the item (see mayDifferFrom).
  const mayDiffer = before.mayDifferFrom(after);
  return items
    .filter((item) => mayDiffer(item) && key(before.entries(item)) !== key(after.entries(item)))
    .map((item) => item.id);
}

/**
 * Whether the item shows alike under both pricings, the specials' names included (the public pages
 * name them): false when an effective price or a special it shows differs.
 */
export function shownAlike(item: TargetedItem, before: MenuPricing, after: MenuPricing): boolean {
  if (before.print === after.print) return true;
  const was = before.entries(item);
  const is = after.entries(item);
  return was.every((entry, index) => {
    const now = is[index]!;
    return (
      entry.effectivePriceCents === now.effectivePriceCents &&
      entry.effectiveMedPriceCents === now.effectiveMedPriceCents &&
      sameSpecial(entry.special, now.special) &&
      sameSpecial(entry.medSpecial, now.medSpecial)
    );
  });
}

const sameSpecial = (a: AppliedSpecial | null, b: AppliedSpecial | null): boolean =>
  a === b || (a !== null && b !== null && a.id === b.id && a.name === b.name && a.endsAt === b.endsAt);
