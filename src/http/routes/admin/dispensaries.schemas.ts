import { Type } from 'typebox';
import { Nullable } from '../../../domain/nullable.js';
import { SLUG_MAX, SLUG_MIN } from '../../../domain/publishing.js';
import { STORE_INFO_FIELDS, WEEKDAYS } from '../../../domain/store-info.js';
import { MenuTypesSchema, StoreInfoSchema } from '../../../forms/common/store-info.js';
import { STORE_INFO_EXAMPLE } from '../../../forms/examples.js';

/** The schemas of the sync API's dispensary routes (src/http/routes/admin/dispensaries.ts). */

const { updated_at: _updatedAt, ...storeFields } = STORE_INFO_EXAMPLE;

/** The demo dispensary's fields that both its detail and its list entry show (after id, name, counts). */
const DEMO_DISPENSARY = {
  created_at: '2026-11-20T09:00:00.000Z',
  updated_at: '2026-11-25T12:00:00.000Z',
  published: true,
  slug: 'demo',
  show_stock: false,
  show_regular_price: true,
  show_potency: true,
};

/** Example requests and answers for the OpenAPI document (each checked against its schema by a test). */
const EXAMPLES = {
  createDispensary: { ...storeFields, name: 'Green Leaf Collective', hours: null },
  storeInfoPatch: { phone: '+1 510 555 0199', website: null },
  publish: { published: true, slug: 'demo', show_stock: false },
  dispensary: { id: 1, name: 'Demo Collective', ...DEMO_DISPENSARY, store: STORE_INFO_EXAMPLE },
  dispensarySummary: { id: 1, name: 'Demo Collective', items: 12, active_items: 11, ...DEMO_DISPENSARY },
  createdDispensary: {
    id: 2,
    name: 'Green Leaf Collective',
    token: 'dt_9hX2kQ7mVb4RzL1pN8sYc3Fw6JtA0uEg',
    store: { ...STORE_INFO_EXAMPLE, name: 'Green Leaf Collective', hours: null },
  },
  token: { id: 1, token: 'dt_Q3vN8pXz1LmK5sR7tY2wB9cF4hJ6gD0a' },
};

/** A day's opening hours as a client sends them: open and close, or closed (the answer's shape fits too). */
const DayHoursInput = Type.Object(
  {
    open: Type.Optional(Nullable(Type.String({ description: 'HH:MM, local time' }))),
    close: Type.Optional(
      Nullable(Type.String({ description: 'HH:MM, local time; before open means after midnight' })),
    ),
    closed: Type.Optional(
      Type.Boolean({ description: 'true: closed that day (open and close are then left out or null)' }),
    ),
  },
  {
    additionalProperties: false,
    description: '{"open": "HH:MM", "close": "HH:MM"} or {"closed": true}.',
  },
);

/**
 * Every store field a client may set, typed as StoreInfo answers it (null clears a field but name and
 * currency); the hours by weekday, any of them (the store's first hours need every day). The values'
 * finer rules (an IANA zone, an ISO 4217 code, an http(s) URL, at most 500 characters) are checked by
 * validateStoreInfoPatch (src/domain/store-info.ts), which names each problem.
 */
const STORE_INPUT = Object.fromEntries(
  Object.keys(STORE_INFO_FIELDS).map((field) => [
    field,
    Type.Optional(
      field === 'hours'
        ? Nullable(
            Type.Object(Object.fromEntries(WEEKDAYS.map((day) => [day, Type.Optional(DayHoursInput)])), {
              additionalProperties: false,
              description:
                'Opening hours per weekday in local time (days left out keep theirs); null clears them',
            }),
          )
        : field === 'menu_types'
          ? Nullable(MenuTypesSchema)
          : StoreInfoSchema.properties[field as keyof typeof STORE_INFO_FIELDS],
    ),
  ]),
);

/** The publishing fields of a dispensary, as a client sets them. */
const PUBLISHING_INPUT = {
  published: Type.Optional(
    Type.Boolean({ description: 'true serves the public pages; false takes them down.' }),
  ),
  slug: Type.Optional(
    Type.String({
      description: `Where the public pages live: ${SLUG_MIN} to ${SLUG_MAX} characters of a-z, 0-9 and -, unique; suggested from the name when publishing without one.`,
    }),
  ),
  show_stock: Type.Optional(
    Type.Boolean({ description: 'true shows stock quantities on the public pages (default false).' }),
  ),
  show_regular_price: Type.Optional(
    Type.Boolean({
      description:
        "false leaves out a special's regular price (struck through) on the public pages and their structured data (default true): Massachusetts treats strike-through prices on online menus as prohibited advertising.",
    }),
  ),
  show_potency: Type.Optional(
    Type.Boolean({
      description:
        'false leaves out the potency badges (THC, CBD) on the public pages (default true): New York restricts promoting potency.',
    }),
  ),
};

export const StoreInfoBody = Type.Object(
  { ...STORE_INPUT, ...PUBLISHING_INPUT },
  {
    additionalProperties: false,
    title: 'DispensaryPatch',
    description: 'Store fields to set (null clears one but name and currency), and the publishing fields.',
    examples: [{ ...EXAMPLES.storeInfoPatch, ...EXAMPLES.publish }],
  },
);

export const CreateDispensaryBody = Type.Object(
  { ...STORE_INPUT, name: Type.String({ minLength: 1, maxLength: 200 }) },
  {
    additionalProperties: false,
    title: 'DispensaryInput',
    description: 'A name, and optionally any store fields.',
    examples: [EXAMPLES.createDispensary],
  },
);

/** Whether and where a dispensary's public pages are served: in its record and in the list. */
const PUBLISHING_OUT = {
  published: Type.Boolean({
    description: 'Whether the public pages (/m/{slug}, /board/{slug}, the embed) are served.',
  }),
  slug: Nullable(Type.String({ description: 'Where the public pages live; null until first published.' })),
  show_stock: Type.Boolean({ description: 'Whether the public pages show stock quantities.' }),
  show_regular_price: Type.Boolean({
    description: "Whether the public pages show a special's regular price struck through.",
  }),
  show_potency: Type.Boolean({ description: 'Whether the public pages show potency badges.' }),
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
  { title: 'Dispensary', examples: [EXAMPLES.dispensary] },
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
  { title: 'DispensarySummary', examples: [EXAMPLES.dispensarySummary] },
);

export const CreatedDispensaryOut = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    token: Type.String({ description: 'Shown once: hand it to the dispensary.' }),
    store: StoreInfoSchema,
  },
  { title: 'CreatedDispensary', examples: [EXAMPLES.createdDispensary] },
);

/** rotate-token's body is optional: no body (or null) keeps the default grace period. */
export const RotateTokenBody = Type.Union(
  [
    Type.Object(
      {
        grace_seconds: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 30 * 24 * 60 * 60,
            description:
              'How long the old token keeps working, seconds (default 86400 = 24 hours; 0 ends it at once).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
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
  { title: 'RotatedToken', examples: [EXAMPLES.token] },
);
