import { Type } from 'typebox';
import { fromCanonicalRecord } from '../../domain/canonical.js';
import type { MenuItem } from '../../domain/item.js';
import { type ItemRead, ItemReadSchema, PriceReadSchema, toItemRead } from '../../domain/item-reads.js';
import { CANONICAL_ITEM_EXAMPLE } from '../../domain/item-schema.js';
import { Nullable } from '../../domain/nullable.js';
import { FACETS } from './query.js';

/**
 * Form v1's item: the canonical item in its own snake_case names, every field, with the figures a read
 * derives (the headline potency, each price entry's net_weight_g and price_per_gram).
 */
export const V1ItemSchema = Type.Object(ItemReadSchema.properties, {
  additionalProperties: false,
  title: 'V1Item',
  description: 'The canonical item, every field, with the read-only figures derived from them.',
});

export const toV1Item = (item: MenuItem): ItemRead => toItemRead(item);

const EXAMPLE = toV1Item(fromCanonicalRecord(CANONICAL_ITEM_EXAMPLE));

/** The names `fields` takes: each top-level field, and `prices.<name>` for a price entry's. */
export const FIELD_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(V1ItemSchema.properties),
  ...Object.keys(PriceReadSchema.properties).map((name) => `prices.${name}`),
]);

/** A record cut down to the fields asked for (`fields=id,name,prices.price`). */
export function project(record: ItemRead, fields: readonly string[]): Record<string, unknown> {
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
      Type.Partial(
        Type.Object({ ...V1ItemSchema.properties, prices: Type.Array(Type.Partial(PriceReadSchema)) }),
        { additionalProperties: false, title: 'V1ItemFields' },
      ),
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
