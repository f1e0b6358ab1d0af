import { Type } from 'typebox';
import { Nullable } from '../../domain/nullable.js';
import {
  PRICED_ITEM_EXAMPLE,
  PricedEntrySchema,
  type PricedItemRecord,
  PricedItemSchema,
} from '../../domain/priced-item.js';
import { FACETS } from './query.js';

/**
 * Form v1's item: the canonical item in its own snake_case names, every field, with the figures a read
 * derives (the headline potency, each price entry's net_weight_g and price_per_gram) and the price
 * people pay now (each entry's effective prices and their specials), as the sync API's menu read has it.
 */
export const V1ItemSchema = Type.Object(PricedItemSchema.properties, {
  additionalProperties: false,
  title: 'V1Item',
  description:
    'The canonical item, every field, with the read-only figures derived from them and each price entry’s effective prices under the specials now.',
  examples: [PRICED_ITEM_EXAMPLE],
});

/** A price entry's fields, each optional (a sparse fieldset names some). */
const PricedEntryFields = Type.Partial(Type.Object(PricedEntrySchema.properties), {
  additionalProperties: false,
});

const EXAMPLE = PRICED_ITEM_EXAMPLE;

/** The names `fields` takes: each top-level field, and `prices.<name>` for a price entry's. */
export const FIELD_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(V1ItemSchema.properties),
  ...Object.keys(PricedEntrySchema.properties).map((name) => `prices.${name}`),
]);

/** A record cut down to the fields asked for (`fields=id,name,prices.price`). */
export function project(record: PricedItemRecord, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const source = record as unknown as Record<string, unknown>;
  const priceFields = fields.filter((field) => field.startsWith('prices.')).map((field) => field.slice(7));
  for (const field of fields) if (!field.startsWith('prices.')) out[field] = source[field];
  if (priceFields.length > 0 && !fields.includes('prices')) {
    out.prices = record.prices.map((price) => {
      const entry = price as unknown as Record<string, unknown>;
      return Object.fromEntries(priceFields.map((name) => [name, entry[name]]));
    });
  }
  return out;
}

export const V1MenuSchema = Type.Object(
  {
    // Every field is there unless fields= names some: then only those.
    data: Type.Array(
      Type.Partial(Type.Object({ ...V1ItemSchema.properties, prices: Type.Array(PricedEntryFields) }), {
        additionalProperties: false,
        title: 'V1ItemFields',
      }),
      {
        description:
          'This page of items, each with every field of V1Item; with fields=, only the fields asked for.',
      },
    ),
    next_cursor: Nullable(
      Type.String({
        description: 'The cursor of the next page (send it as cursor=); null on the last page.',
      }),
    ),
    total: Type.Integer({ minimum: 0, description: 'How many items the query matches, over every page.' }),
    facets: Type.Record(
      Type.String({ enum: [...FACETS] }),
      Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
      { description: 'For each list named in facets=, how many matching items have each value.' },
    ),
  },
  {
    additionalProperties: false,
    title: 'V1Menu',
    examples: [{ data: [EXAMPLE], next_cursor: null, total: 1, facets: { brand: { [EXAMPLE.brand]: 1 } } }],
  },
);
