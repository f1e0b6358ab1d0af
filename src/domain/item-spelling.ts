import type { TSchema } from 'typebox';
import type { Field } from './field-kinds.js';
import type { MenuItem } from './item.js';
import {
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
 *
 * An answer maps a whole menu, so the writer is generated once per spelling as one function that
 * returns one object literal, like a hand-written mapping: V8 then builds every answer in one fixed
 * shape. On 5,000 items a loop over the fields cost about ten times the hand-written mapping, this no
 * more than it (bench/item-mapping.ts). The generated source holds only the names of our own field
 * declarations and spellings, each written as a JSON string literal, and never any data.
 */
export function respeller(
  spelling: ItemSpelling,
  priceSpelling: PriceSpelling,
): (item: MenuItem) => Record<string, unknown> {
  const name = (text: string) => JSON.stringify(text);
  const field = (fields: readonly NamedField[], canonical: string) =>
    fields.find((candidate) => candidate.name === canonical)!;
  const read = (from: string, { kind, key }: NamedField) =>
    kind === 'money' ? `fromCents(${from}[${name(key)}])` : `${from}[${name(key)}]`;
  const entry = Object.entries(priceSpelling)
    .map(([wire, canonical]) => `${name(wire)}: ${read('entry', field(PRICE_FIELD_LIST, canonical))}`)
    .join(', ');
  // The price entries are written once per item, even when two wire names carry them.
  const lists = [...new Set(Object.values(spelling))]
    .map((canonical, index) => ({ field: field(ITEM_FIELD_LIST, canonical), local: `entries${index}` }))
    .filter(({ field }) => field.kind === 'entries');
  const item = Object.entries(spelling)
    .map(([wire, canonical]) => {
      const list = lists.find(({ field }) => field.name === canonical);
      return `${name(wire)}: ${list ? list.local : read('item', field(ITEM_FIELD_LIST, canonical))}`;
    })
    .join(', ');
  const source = `
    const writeEntry = (entry) => ({ ${entry} });
    return (item) => {
      ${lists.map(({ field, local }) => `const ${local} = ${read('item', field)}.map(writeEntry);`).join('\n')}
      return { ${item} };
    };`;
  const generate = new Function('fromCents', source) as (
    money: typeof fromCents,
  ) => (item: MenuItem) => Record<string, unknown>;
  return generate(fromCents);
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
