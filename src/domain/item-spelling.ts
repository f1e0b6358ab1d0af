import type { TSchema } from 'typebox';
import {
  type CanonicalItem,
  type CanonicalPrice,
  type Field,
  ITEM_FIELDS,
  type PRICE_FIELDS,
} from './item-schema.js';

/**
 * A wire shape of the item (a request form's): for each field it sends, in its order, the canonical
 * field it carries. Its schema takes the canonical field schemas under these names, its answers take
 * the canonical values, and the names that differ are the aliases an import accepts.
 */
export type Spelling<F> = Readonly<Record<string, keyof F & string>>;
export type ItemSpelling = Spelling<typeof ITEM_FIELDS>;
export type PriceSpelling = Spelling<typeof PRICE_FIELDS>;

type Fields = Readonly<Record<string, Field>>;

/**
 * The canonical schemas of the fields a spelling carries, under its names and in its order; the price
 * entries take the form's own entries schema (`entries`), as their spelling may differ too.
 */
export type SpelledSchemas<F extends Fields, S extends Spelling<F>, E extends TSchema> = {
  -readonly [W in keyof S]: F[S[W]] extends { kind: 'entries' } ? E : F[S[W]]['schema'];
};

export function spelledSchemas<F extends Fields, const S extends Spelling<F>, E extends TSchema = never>(
  fields: F,
  spelling: S,
  entries?: E,
): SpelledSchemas<F, S, E> {
  return Object.fromEntries(
    Object.entries(spelling).map(([wire, canonical]) => {
      const field = fields[canonical]!;
      return [wire, field.kind === 'entries' ? entries : field.schema];
    }),
  ) as SpelledSchemas<F, S, E>;
}

/** A canonical item in a spelling: its fields under their wire names, each price entry likewise. */
export function respell(
  item: CanonicalItem,
  spelling: ItemSpelling,
  priceSpelling: PriceSpelling,
): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [name, canonical] of Object.entries(spelling)) {
    wire[name] =
      ITEM_FIELDS[canonical].kind === 'entries'
        ? (item[canonical] as CanonicalPrice[]).map((price) => {
            const entry: Record<string, unknown> = {};
            for (const [entryName, field] of Object.entries(priceSpelling)) entry[entryName] = price[field];
            return entry;
          })
        : item[canonical];
  }
  return wire;
}

/**
 * The names of an item spelling that differ from the canonical ones, each with the name it stands for.
 * Only item fields have aliases: the validator reads price entries by their canonical names.
 */
export function aliasesOf(...spellings: Spelling<Fields>[]): Readonly<Record<string, string>> {
  return Object.fromEntries(
    spellings.flatMap((spelling) =>
      Object.entries(spelling).filter(([wire, canonical]) => wire !== canonical),
    ),
  );
}
