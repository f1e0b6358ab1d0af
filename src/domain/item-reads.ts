import { type Static, Type } from 'typebox';
import { fromCanonicalRecord, toCanonicalRecord } from './canonical.js';
import type { MenuItem } from './item.js';
import type { Analyte } from './item-documents.js';
import {
  CANONICAL_ITEM_EXAMPLE,
  CanonicalItemSchema,
  type CanonicalPrice,
  PriceEntrySchema,
} from './item-schema.js';
import { POTENCY_BASES, POTENCY_UNITS } from './lab-vocabulary.js';
import { Nullable } from './nullable.js';

/**
 * What a read of the sync API adds to the canonical item: figures derived from its fields, computed
 * here, once, as the item is read, and never stored (an input may send them back; they are ignored).
 * - each price entry's `net_weight_g` (retail convention: 1 oz = 28 g, so 1/8 oz = 3.5 g; null for
 *   `unit`) and `price_per_gram` (price / net_weight_g, to the cent; null without a weight);
 * - `potency`: the headline total THC and CBD, the lab's reported total (`total-thc`, `total-cbd`)
 *   when there is one, else computed from the acid and neutral forms as OpenTHC does:
 *   d9-THC + 0.877 × d9-THCA (CBD + 0.877 × CBDA); null without a detected value.
 */

const GRAMS_PER_OUNCE = 28;
/** The mass a cannabinoid keeps when its acid form loses its carboxyl group (decarboxylation). */
const DECARBOXYLATED = 0.877;

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

export const HeadlineSchema = Type.Object(
  {
    min: Type.Number({ minimum: 0 }),
    max: Type.Number({ minimum: 0 }),
    unit: Type.Unsafe<string>({ type: 'string', enum: [...POTENCY_UNITS] }),
    basis: Type.Unsafe<string>({ type: 'string', enum: [...POTENCY_BASES] }),
    method: Type.Unsafe<'reported' | 'computed'>({
      type: 'string',
      enum: ['reported', 'computed'],
      description: "reported: the lab's total; computed: neutral + 0.877 × acid form.",
    }),
  },
  { additionalProperties: false, title: 'Headline' },
);

export const PotencySchema = Type.Object(
  { thc: Type.Union([HeadlineSchema, Type.Null()]), cbd: Type.Union([HeadlineSchema, Type.Null()]) },
  {
    additionalProperties: false,
    title: 'Potency',
    description: 'Read only: total THC and CBD from cannabinoids (null without a detected value).',
  },
);

export const PriceReadSchema = Type.Object(
  {
    ...PriceEntrySchema.properties,
    net_weight_g: Nullable(
      Type.Number({ minimum: 0, description: 'Read only: grams (1 oz = 28 g); null for unit.' }),
    ),
    price_per_gram: Nullable(Type.Number({ minimum: 0, description: 'Read only: price / net_weight_g.' })),
  },
  { additionalProperties: false },
);

export type ItemRead = Static<typeof CanonicalItemSchema> & {
  potency: Static<typeof PotencySchema>;
  prices: (CanonicalPrice & { net_weight_g: number | null; price_per_gram: number | null })[];
};

/** An entry's net weight in grams by the retail convention (1 oz = 28 g); null for `unit`. */
export function netWeightGrams(unit: string, amount: number): number | null {
  return unit === 'gram' ? amount : unit === 'ounce' ? round(amount * GRAMS_PER_OUNCE, 6) : null;
}

function priceRead(price: CanonicalPrice): ItemRead['prices'][number] {
  const grams = netWeightGrams(price.unit, price.amount);
  return { ...price, net_weight_g: grams, price_per_gram: grams ? round(price.price / grams, 2) : null };
}

function headline(analytes: readonly Analyte[], total: string, neutral: string, acid: string) {
  const detected = (code: string) =>
    analytes.find((analyte) => analyte.code === code && analyte.status === 'detected');
  const reported = detected(total);
  if (reported) {
    const { min, max, unit, basis } = reported;
    return { min: min!, max: max!, unit, basis, method: 'reported' as const };
  }
  const first = detected(neutral) ?? detected(acid);
  if (!first) return null;
  // Both forms in the unit and basis of the first found; a form missing there counts as none.
  const inKind = (code: string) =>
    analytes.find(
      (analyte) =>
        analyte.code === code &&
        analyte.status === 'detected' &&
        analyte.unit === first.unit &&
        analyte.basis === first.basis,
    );
  const base = inKind(neutral);
  const acidForm = inKind(acid);
  const sum = (pick: 'min' | 'max') =>
    round((base?.[pick] ?? 0) + DECARBOXYLATED * (acidForm?.[pick] ?? 0), 4);
  return {
    min: sum('min'),
    max: sum('max'),
    unit: first.unit,
    basis: first.basis,
    method: 'computed' as const,
  };
}

/** The headline total THC and CBD of a cannabinoid list (the read's `potency`). */
export function headlinePotency(cannabinoids: readonly Analyte[]): Static<typeof PotencySchema> {
  return {
    thc: headline(cannabinoids, 'total-thc', 'd9-thc', 'd9-thca'),
    cbd: headline(cannabinoids, 'total-cbd', 'cbd', 'cbda'),
  };
}

/** The item as the sync API reads it: its canonical record with the derived figures. */
export function toItemRead(item: MenuItem): ItemRead {
  const record = toCanonicalRecord(item);
  const { prices, ...fields } = record;
  return {
    ...fields,
    potency: headlinePotency(record.cannabinoids),
    prices: prices.map(priceRead),
  } as ItemRead;
}

/** The one example item as the sync API reads it (the example of ItemRead and of the priced menu read). */
export const ITEM_READ_EXAMPLE = toItemRead(fromCanonicalRecord(CANONICAL_ITEM_EXAMPLE));

export const ItemReadSchema = Type.Object(
  {
    ...CanonicalItemSchema.properties,
    potency: PotencySchema,
    prices: Type.Array(PriceReadSchema),
  },
  {
    additionalProperties: false,
    title: 'ItemRead',
    description:
      "A canonical item as the sync API reads it, with read-only figures derived from its fields (potency, and each price entry's net_weight_g and price_per_gram): sent back in a write, they are ignored.",
    examples: [ITEM_READ_EXAMPLE],
  },
);
