import { Type } from 'typebox';
import { fromCanonicalRecord } from '../../domain/canonical.js';
import type { MenuItem } from '../../domain/item.js';
import { CANONICAL_ITEM_EXAMPLE, ITEM_FIELDS, PRICE_FIELDS } from '../../domain/item-schema.js';
import { aliasesOf, respeller, spelledSchemas } from '../../domain/item-spelling.js';
import type { FormBNames } from '../form.js';

/**
 * Form B's item: the canonical fields it sends, under its names, in the order of the specification's
 * table. The table says brand and variants; its sample payload says brand_name and prices: both are
 * listed here in their places, and `names` chooses which are sent.
 */
const ITEM_SPELLING = {
  id: 'id',
  name: 'name',
  description: 'description',
  image: 'image',
  type: 'product_type',
  subtype: 'product_subtype',
  brand: 'brand',
  brand_name: 'brand',
  cbd: 'cbd',
  cbn: 'cbn',
  thc: 'thc',
  total_thc: 'total_thc',
  total_cbd: 'total_cbd',
  flavors: 'flavors',
  effects: 'effects',
  conditions: 'conditions',
  variants: 'prices',
  prices: 'prices',
} as const;
const PRICE_SPELLING = { unit: 'unit', amount: 'amount', price: 'price', stock: 'stock' } as const;

/** The spellings each choice of names leaves out. */
const LEFT_OUT = { both: [], table: ['brand_name', 'prices'], sample: ['brand', 'variants'] } as const;

function spellingOf<N extends FormBNames>(names: N) {
  const leftOut: readonly string[] = LEFT_OUT[names];
  return Object.fromEntries(
    Object.entries(ITEM_SPELLING).filter(([wire]) => !leftOut.includes(wire)),
  ) as Omit<typeof ITEM_SPELLING, (typeof LEFT_OUT)[N][number]>;
}

const SPELLINGS = { both: spellingOf('both'), table: spellingOf('table'), sample: spellingOf('sample') };

export const FormBPrice = Type.Object(spelledSchemas(PRICE_FIELDS, PRICE_SPELLING), {
  additionalProperties: false,
});

export function formBItemSchema<N extends FormBNames>(names: N) {
  const spelling = SPELLINGS[names] as ReturnType<typeof spellingOf<N>>;
  return Type.Object(spelledSchemas(ITEM_FIELDS, spelling, Type.Array(FormBPrice)), {
    additionalProperties: false,
    title: 'FormBItem',
  });
}

const WRITERS = {
  both: respeller(SPELLINGS.both, PRICE_SPELLING),
  table: respeller(SPELLINGS.table, PRICE_SPELLING),
  sample: respeller(SPELLINGS.sample, PRICE_SPELLING),
};

export function formBMenuSchema(names: FormBNames) {
  return Type.Array(formBItemSchema(names), {
    examples: [[toFormBItem(fromCanonicalRecord(CANONICAL_ITEM_EXAMPLE), names)]],
  });
}

/** Field names of Form B (both spellings) that differ from the canonical names. */
export const formBItemFieldAliases = aliasesOf(ITEM_SPELLING);

export function toFormBItem(item: MenuItem, names: FormBNames): Record<string, unknown> {
  return WRITERS[names](item);
}
