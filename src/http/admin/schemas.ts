import { Type } from 'typebox';
import { StoreInfoSchema } from '../../forms/common/store-info.js';
import { Nullable } from '../../forms/nullable.js';
import { ADMIN_EXAMPLES, CANONICAL_ITEM_EXAMPLE } from './examples.js';

export const IdParams = Type.Object({
  id: Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'Dispensary id', examples: ['1'] }),
});
export const ItemParams = Type.Object({
  id: Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'Dispensary id', examples: ['1'] }),
  item_id: Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'Item id', examples: ['1'] }),
});
export const UsernameParams = Type.Object({
  username: Type.String({ maxLength: 64, examples: ['menu-board'] }),
});

const Price = Type.Object({
  unit: Type.String({ enum: ['gram', 'ounce', 'unit'] }),
  amount: Type.Number(),
  price: Type.Number(),
  stock: Nullable(Type.Number()),
});

/** The canonical item: every field of both forms, as imports, exports and the sync API use it. */
export const CanonicalItem = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    brand: Type.String(),
    product_type: Type.String(),
    product_subtype: Type.String(),
    description: Type.String(),
    image: Nullable(Type.String()),
    cbd: Nullable(Type.Number()),
    cbn: Nullable(Type.Number()),
    thc: Nullable(Type.Number()),
    total_thc: Nullable(Type.Number()),
    total_cbd: Nullable(Type.Number()),
    flavors: Type.Array(Type.String()),
    effects: Type.Array(Type.String()),
    conditions: Type.Array(Type.String()),
    active: Type.Boolean(),
    prices: Type.Array(Price),
  },
  { title: 'CanonicalItem', examples: [CANONICAL_ITEM_EXAMPLE] },
);

/**
 * Item bodies are checked by the same validator as `menu import` (src/domain/validate-item.ts), which
 * also accepts either form's field names and reports every problem; the schema here documents them.
 */
export const ItemsBody = Type.Array(Type.Unknown(), {
  description: 'Items with canonical, Form A or Form B field names; id optional (assigned when missing).',
  examples: [[CANONICAL_ITEM_EXAMPLE]],
});
export const ItemPatchBody = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Any item fields to change, for example {"active": false}.',
  examples: [ADMIN_EXAMPLES.itemPatch],
});
export const StockBody = Type.Array(
  Type.Object({
    item_id: Type.Integer(),
    unit: Type.String({ enum: ['gram', 'ounce', 'unit'] }),
    amount: Type.Number(),
    stock: Nullable(Type.Number()),
  }),
  {
    description: 'Stock levels to set, each matched to a price entry by item, unit and amount.',
    examples: [ADMIN_EXAMPLES.stock],
  },
);
export const StoreInfoBody = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Store fields to set (name, address, city, state, postal_code, country, phone, email, website, timezone, license_number, currency, hours, logo); null clears one.',
  examples: [ADMIN_EXAMPLES.storeInfoPatch],
});
export const CreateDispensaryBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  {
    additionalProperties: true,
    description: 'A name, and optionally any store fields.',
    examples: [ADMIN_EXAMPLES.createDispensary],
  },
);
export const IssueCredentialBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    expires_at: Type.Optional(
      Nullable(Type.String({ description: 'RFC 3339 time; the credential stops working then.' })),
    ),
    dispensaries: Type.Optional(
      Nullable(
        Type.Array(Type.Integer(), { description: 'The only dispensary ids this credential may read.' }),
      ),
    ),
  },
  { examples: [ADMIN_EXAMPLES.issueCredential] },
);

export const DispensaryOut = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    created_at: Type.String(),
    updated_at: Type.String(),
    store: StoreInfoSchema,
  },
  { examples: [ADMIN_EXAMPLES.dispensary] },
);
/** One row of the dispensary list. */
export const DispensarySummaryOut = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    items: Type.Integer({ description: 'Items on the menu, active or not.' }),
    active_items: Type.Integer(),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { examples: [ADMIN_EXAMPLES.dispensarySummary] },
);
export const CreatedDispensaryOut = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    token: Type.String({ description: 'Shown once: hand it to the dispensary.' }),
    store: StoreInfoSchema,
  },
  { examples: [ADMIN_EXAMPLES.createdDispensary] },
);
export const TokenOut = Type.Object(
  {
    id: Type.Integer(),
    token: Type.String({ description: 'Shown once.' }),
  },
  { examples: [ADMIN_EXAMPLES.token] },
);
export const CredentialOut = Type.Object(
  {
    username: Type.String(),
    created_at: Type.String(),
    revoked_at: Nullable(Type.String()),
    expires_at: Nullable(Type.String()),
    last_used_at: Nullable(Type.String()),
    dispensaries: Nullable(Type.Array(Type.Integer())),
  },
  { examples: [ADMIN_EXAMPLES.credential] },
);
export const IssuedCredentialOut = Type.Object(
  {
    username: Type.String(),
    password: Type.String({ description: 'Shown once.' }),
  },
  { examples: [ADMIN_EXAMPLES.issuedCredential] },
);
export const ImportReportOut = Type.Object(
  {
    dispensary_id: Type.Integer(),
    items: Type.Integer(),
    active_items: Type.Integer(),
    price_entries: Type.Integer(),
  },
  { examples: [ADMIN_EXAMPLES.importReport] },
);
export const UpsertOut = Type.Object(
  {
    created: Type.Array(Type.Integer()),
    updated: Type.Array(Type.Integer()),
  },
  { examples: [ADMIN_EXAMPLES.upsert] },
);
export const StockOut = Type.Object({ updated: Type.Integer() }, { examples: [ADMIN_EXAMPLES.stockReport] });
