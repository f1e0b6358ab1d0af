import type { TSchema } from 'typebox';
import type { MenuItem } from './item.js';
import {
  type Field,
  ITEM_FIELD_LIST,
  type ITEM_FIELDS,
  type NamedField,
  PRICE_FIELD_LIST,
  type PRICE_FIELDS,
} from './item-schema.js';
import { fromCents } from './money.js';

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

/**
 * Writes an item in a spelling: the canonical value of each field (money as a number, not cents)
 * under its wire name, each price entry likewise.
 */
export function respeller(
  spelling: ItemSpelling,
  priceSpelling: PriceSpelling,
): (item: MenuItem) => Record<string, unknown> {
  // Worked out once per spelling, and one pass over the model per item: an answer maps a whole menu.
  const plan = (fields: readonly NamedField[], names: Readonly<Record<string, string>>) =>
    Object.entries(names).map(([wire, canonical]) => ({
      wire,
      field: fields.find((field) => field.name === canonical)!,
    }));
  const write = (model: Record<string, unknown>, steps: ReturnType<typeof plan>) => {
    const out: Record<string, unknown> = {};
    for (const { wire, field } of steps) {
      const value = model[field.key];
      out[wire] =
        field.kind === 'money'
          ? fromCents(value as number)
          : field.kind === 'entries'
            ? (value as Record<string, unknown>[]).map((entry) => write(entry, priceSteps))
            : value;
    }
    return out;
  };
  const itemSteps = plan(ITEM_FIELD_LIST, spelling);
  const priceSteps = plan(PRICE_FIELD_LIST, priceSpelling);
  return (item) => write(item, itemSteps);
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
