import { describe, expect, it } from 'vitest';
import {
  CANONICAL_ITEM_FIELDS,
  CANONICAL_PRICE_FIELDS,
  toCanonicalRecord,
} from '../../src/domain/canonical.js';
import type { MenuItem } from '../../src/domain/item.js';
import {
  CANONICAL_ITEM_EXAMPLE,
  CanonicalItemSchema,
  ITEM_FIELDS,
  PRICE_FIELDS,
} from '../../src/domain/item-schema.js';
import { validateItem } from '../../src/domain/validate-item.js';
import { formAItemFieldAliases } from '../../src/forms/form-a/item.js';
import { formBItemFieldAliases } from '../../src/forms/form-b/item.js';
import { CSV_COLUMNS } from '../../src/services/menu-files/csv.js';
import { MENU_ITEM_COLUMNS, MENU_PRICE_COLUMNS } from '../../src/store/item-rows.js';

/** Everything that names the item's fields follows the one declaration in src/domain/item-schema.ts. */
describe('the item schema', () => {
  const itemFields = Object.keys(ITEM_FIELDS).filter((name) => name !== 'prices');
  const priceFields = Object.keys(PRICE_FIELDS);

  it('gives the field lists, the CSV columns and the table columns, in declaration order', () => {
    expect(CANONICAL_ITEM_FIELDS).toEqual(itemFields);
    expect(CANONICAL_PRICE_FIELDS).toEqual(priceFields);
    expect(CSV_COLUMNS).toEqual([...itemFields, ...priceFields]);
    expect(MENU_ITEM_COLUMNS).toEqual(itemFields);
    expect(MENU_PRICE_COLUMNS).toEqual([
      'item_id',
      'unit',
      'amount',
      'price_cents',
      'stock',
      'label',
      'med_price_cents',
      'sku',
      'barcode',
      'updated_at',
    ]);
    expect(Object.keys(CanonicalItemSchema.properties)).toEqual(Object.keys(ITEM_FIELDS));
  });

  it('has one example item that validates into the model and comes back unchanged as a record', () => {
    const result = validateItem(CANONICAL_ITEM_EXAMPLE, {});
    expect(result.ok).toBe(true);
    const item = (result as { item: MenuItem }).item;
    expect(item.productType).toBe(CANONICAL_ITEM_EXAMPLE.product_type);
    expect(item.prices.map((price) => price.priceCents)).toEqual(
      CANONICAL_ITEM_EXAMPLE.prices.map((price) => Math.round(price.price * 100)),
    );
    expect(JSON.stringify(toCanonicalRecord(item))).toBe(JSON.stringify(CANONICAL_ITEM_EXAMPLE));
  });

  it("gives each form's aliases from its spelling", () => {
    expect(formAItemFieldAliases).toEqual({ brand_name: 'brand', product_prices: 'prices' });
    expect(formBItemFieldAliases).toEqual({
      type: 'product_type',
      subtype: 'product_subtype',
      brand_name: 'brand',
      variants: 'prices',
    });
  });
});
