import { type TSchema, Type } from 'typebox';
import {
  CANONICAL_ITEM_EXAMPLE,
  CanonicalItemSchema,
  ITEM_FIELDS,
  type ItemFieldName,
  PRICE_FIELDS,
} from '../../domain/item-schema.js';
import { Nullable } from '../../domain/nullable.js';
import { StoreInfoSchema } from '../../forms/common/store-info.js';
import { ALL_ITEM_FIELD_ALIASES } from '../../forms/index.js';
import { ADMIN_EXAMPLES } from './examples.js';

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

/** The canonical item: every field of both forms, as imports, exports and the sync API use it. */
export const CanonicalItem = CanonicalItemSchema;

/**
 * An item as the sync API takes it: the canonical fields, and each request form's other spellings.
 * A whole item needs a name (and a product type); a patch may send any fields.
 */
function itemInput(title: string, whole: boolean) {
  const optional = (name: string, schema: TSchema) =>
    whole && name === 'name' ? schema : Type.Optional(schema);
  return Type.Object(
    {
      ...Object.fromEntries(
        Object.entries(ITEM_FIELDS).map(([name, field]) => [name, optional(name, field.schema)]),
      ),
      ...Object.fromEntries(
        Object.entries(ALL_ITEM_FIELD_ALIASES).map(([alias, canonical]) => [
          alias,
          Type.Optional(
            Type.Unsafe({
              ...ITEM_FIELDS[canonical as ItemFieldName].schema,
              description: `A request form's spelling of ${canonical}: send one of the two.`,
            }),
          ),
        ]),
      ),
    },
    {
      additionalProperties: false,
      title,
      description: whole
        ? 'A canonical item, any field also in a request form\'s spelling. id is assigned when missing; product_type (or its other spelling) is required, in any letter case; a missing text is "", a missing number or image null, a missing list [], a missing active true.'
        : "Fields of a canonical item, any also in a request form's spelling; the rest of the item stays as it is.",
    },
  );
}

/**
 * What the schema leaves to the item validator (src/domain/validate-item.ts, shared with `menu import`):
 * it checks each item and names every problem by index and field, which one schema failure could not.
 */
const CHECKED_BY_VALIDATOR = Type.Unknown({
  description: 'Any other value is refused with 400, each problem named by index and field.',
});

export const ItemsBody = Type.Array(Type.Union([itemInput('ItemInput', true), CHECKED_BY_VALIDATOR]), {
  description: 'Items with canonical, Form A or Form B field names; id optional (assigned when missing).',
  examples: [[CANONICAL_ITEM_EXAMPLE]],
});
export const ItemPatchBody = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  anyOf: [itemInput('ItemPatch', false), CHECKED_BY_VALIDATOR],
  description: 'Any item fields to change, for example {"active": false}.',
  examples: [ADMIN_EXAMPLES.itemPatch],
});
export const StockBody = Type.Array(
  Type.Object({
    item_id: Type.Integer(),
    unit: PRICE_FIELDS.unit.schema,
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
    'Store fields to set (name, address, city, state, postal_code, country, phone, email, website, timezone, license_number, currency, hours, logo); null clears one. And the publishing fields: published (true or false), slug (3 to 64 characters of a-z, 0-9 and -, unique; suggested from the name when publishing without one), show_stock (true shows stock quantities on the public pages; default false).',
  examples: [{ ...ADMIN_EXAMPLES.storeInfoPatch, ...ADMIN_EXAMPLES.publish }],
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

/** Whether and where a dispensary's public pages are served: in its record and in the list. */
const PUBLISHING_OUT = {
  published: Type.Boolean({
    description: 'Whether the public pages (/m/{slug}, /board/{slug}, the embed) are served.',
  }),
  slug: Nullable(Type.String({ description: 'Where the public pages live; null until first published.' })),
  show_stock: Type.Boolean({ description: 'Whether the public pages show stock quantities.' }),
};
export const DispensaryOut = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    created_at: Type.String(),
    updated_at: Type.String(),
    ...PUBLISHING_OUT,
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
    ...PUBLISHING_OUT,
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
/** rotate-token's body is optional: no body (or null) keeps the default grace period. */
export const RotateTokenBody = Type.Union(
  [
    Type.Object({
      grace_seconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 30 * 24 * 60 * 60,
          description:
            'How long the old token keeps working, seconds (default 86400 = 24 hours; 0 ends it at once).',
        }),
      ),
    }),
    Type.Null(),
  ],
  {
    description: 'Optional: send no body to keep the old token for the default 24 hours.',
    examples: [{ grace_seconds: 3600 }],
  },
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

export const SignInBody = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 200, description: 'An admin key (mak_…).' }) },
  { additionalProperties: false, examples: [{ key: 'mak_…' }] },
);
export const SessionOut = Type.Object(
  {
    admin_key: Type.Object({ name: Type.String(), scope: Type.String() }),
    csrf_token: Type.String({
      description: 'Send it as X-CSRF-Token on every write made with the session cookie.',
    }),
    expires_at: Type.String({ description: 'The absolute end of the session.' }),
    idle_timeout_seconds: Type.Integer({ description: 'The session ends after this long unused.' }),
  },
  { examples: [ADMIN_EXAMPLES.session] },
);
export const AdminKeyOut = Type.Object(
  {
    name: Type.String(),
    scope: Type.String({ description: '"all", or "dispensary:ID" for a key limited to one dispensary.' }),
    created_at: Type.String(),
    revoked_at: Nullable(Type.String()),
    last_used_at: Nullable(Type.String({ description: 'Last use, to the minute; null if never used.' })),
  },
  { examples: [ADMIN_EXAMPLES.adminKey] },
);
export const CreateAdminKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    scope: Type.String({ description: '"all" or "dispensary:ID".' }),
  },
  { additionalProperties: false, examples: [{ name: 'store-3-staff', scope: 'dispensary:3' }] },
);
export const CreatedAdminKeyOut = Type.Object(
  {
    name: Type.String(),
    scope: Type.String(),
    key: Type.String({ description: 'Shown once.' }),
  },
  { examples: [ADMIN_EXAMPLES.createdAdminKey] },
);
export const NameParams = Type.Object({ name: Type.String({ maxLength: 64, examples: ['store-3-staff'] }) });
export const AuditQuerystring = Type.Object({
  dispensary_id: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'Dispensary id' })),
  actor: Type.Optional(Type.String({ maxLength: 100, description: 'cli, or key:NAME' })),
  since: Type.Optional(Type.String({ description: 'RFC 3339 time: entries after it.' })),
  until: Type.Optional(Type.String({ description: 'RFC 3339 time: entries before it.' })),
  limit: Type.Optional(
    Type.String({
      pattern: '^[1-9][0-9]{0,3}$',
      description: 'At most this many entries, the newest (default 500).',
    }),
  ),
});
export const AuditEntryOut = Type.Object(
  {
    id: Type.Integer(),
    at: Type.String(),
    actor: Type.String(),
    dispensary_id: Nullable(Type.Integer()),
    action: Type.String(),
    detail: Type.Record(Type.String(), Type.Unknown()),
  },
  { examples: [ADMIN_EXAMPLES.auditEntry] },
);
export const UsageQuerystring = Type.Object({
  days: Type.Optional(
    Type.String({ pattern: '^([1-9]|[12][0-9]|3[01])$', description: '1 to 31 days back (default 7).' }),
  ),
});
export const UsageOut = Type.Object(
  {
    username: Type.String(),
    hour: Type.String({ description: "The hour's start (UTC)." }),
    requests: Type.Integer(),
  },
  { examples: [ADMIN_EXAMPLES.usage] },
);
export const MenuFileQuerystring = Type.Object({
  format: Type.Union([Type.Literal('csv'), Type.Literal('json')], {
    description: 'csv (the canonical columns, a row per price entry) or json (an array of items).',
  }),
  dry_run: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'true: check only, nothing is written.',
    }),
  ),
});
export const ExportQuerystring = Type.Object({
  format: Type.Union([Type.Literal('csv'), Type.Literal('json')]),
});
export const ImportResultOut = Type.Object(
  {
    dry_run: Type.Boolean(),
    applied: Type.Boolean({ description: 'Whether the menu was replaced.' }),
    items: Type.Integer({ description: 'Items that passed validation.' }),
    active_items: Type.Integer(),
    price_entries: Type.Integer(),
    rejected: Type.Array(
      Type.Object({
        line: Nullable(Type.Integer({ description: 'The CSV line, or the JSON item index + 1.' })),
        field: Type.String(),
        message: Type.String(),
      }),
      { description: 'Every problem found; an apply with any is refused with 400 instead.' },
    ),
  },
  { examples: [ADMIN_EXAMPLES.importResult] },
);

const WEBHOOK_EVENT = Type.Union(
  [Type.Literal('item.upserted'), Type.Literal('item.removed'), Type.Literal('store.updated')],
  { description: 'A change type of the change feed.' },
);
const WEBHOOK_EXAMPLE = {
  id: 1,
  credential: 'menu-board',
  dispensary_id: 1,
  url: 'https://hooks.example.com/menu',
  events: null,
  enabled: true,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  failing_since: null,
  disabled_reason: null,
};
const WEBHOOK_FIELDS = {
  id: Type.Integer(),
  credential: Type.String({ description: 'The subscribed credential (its username).' }),
  dispensary_id: Type.Integer(),
  url: Type.String(),
  events: Nullable(Type.Array(WEBHOOK_EVENT, { description: 'The change types sent; null for every type.' })),
  enabled: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
  failing_since: Nullable(
    Type.String({
      description: 'Since when every delivery has failed; null while the endpoint answers 2xx.',
    }),
  ),
  disabled_reason: Nullable(Type.String({ description: 'Why the endpoint was turned off automatically.' })),
};
export const WebhookParams = Type.Object({
  id: Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'Webhook id', examples: ['1'] }),
});
export const DeliveryParams = Type.Object({
  id: Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'Webhook id', examples: ['1'] }),
  delivery_id: Type.String({
    maxLength: 64,
    description: 'Delivery id (the webhook-id header)',
    examples: ['msg_2mVbMw3bS0tWm4dFz8g1Rg'],
  }),
});
export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(
    Type.String({
      pattern: '^[1-9][0-9]{0,2}$',
      description: 'How many, 1 to 500 (default 50), newest first.',
    }),
  ),
});
export const CreateWebhookBody = Type.Object(
  {
    credential: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The username of the integrator credential.',
    }),
    dispensary_id: Type.Integer({ minimum: 1 }),
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'https:// URL that receives the deliveries.',
    }),
    events: Type.Optional(
      Nullable(
        Type.Array(WEBHOOK_EVENT, { minItems: 1, description: 'Change types to send; default every type.' }),
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ credential: 'menu-board', dispensary_id: 1, url: 'https://hooks.example.com/menu' }],
  },
);
export const PatchWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    events: Type.Optional(Nullable(Type.Array(WEBHOOK_EVENT, { minItems: 1 }))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, examples: [{ enabled: false }] },
);
export const WebhookOut = Type.Object(WEBHOOK_FIELDS, { examples: [WEBHOOK_EXAMPLE] });
export const WebhookWithSecretOut = Type.Object(
  {
    ...WEBHOOK_FIELDS,
    secret: Type.String({
      description:
        'The signing secret, shown once: whsec_ and base64 of 32 random bytes. Give it to the integrator.',
    }),
  },
  { examples: [{ ...WEBHOOK_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3k5Nc2y0tbY=' }] },
);
export const DeliveryOut = Type.Object(
  {
    id: Type.String({ description: 'Sent as the webhook-id header, the same on every attempt.' }),
    cursor: Type.String({ description: "The change's cursor, as /changes gives it." }),
    type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    next_attempt_at: Nullable(Type.String({ description: 'When a pending delivery is tried next.' })),
    last_status_code: Nullable(Type.Integer()),
    last_latency_ms: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    last_response: Nullable(Type.String({ description: "The first 4 KiB of the receiver's last answer." })),
    created_at: Type.String(),
    delivered_at: Nullable(Type.String()),
    attempt_log: Type.Array(
      Type.Object({
        at: Type.String(),
        status_code: Nullable(Type.Integer()),
        latency_ms: Type.Integer(),
        error: Nullable(Type.String()),
      }),
    ),
  },
  {
    examples: [
      {
        id: 'msg_2mVbMw3bS0tWm4dFz8g1Rg',
        cursor: '0000000000000042',
        type: 'item.upserted',
        status: 'delivered',
        attempts: 1,
        next_attempt_at: null,
        last_status_code: 204,
        last_latency_ms: 12,
        last_error: null,
        last_response: '',
        created_at: '2026-01-01T00:00:00.000Z',
        delivered_at: '2026-01-01T00:00:00.020Z',
        attempt_log: [{ at: '2026-01-01T00:00:00.005Z', status_code: 204, latency_ms: 12, error: null }],
      },
    ],
  },
);
