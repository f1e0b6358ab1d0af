import { Type } from 'typebox';
import { Nullable } from '../../../domain/nullable.js';
import { FORMS } from '../../../forms/index.js';
import { DEFAULT_WEBHOOK_FORM } from '../../../services/webhooks.js';
import { IdText, OptionalCount } from './shared.schemas.js';

/** The schemas of the sync API's webhook routes (src/http/routes/admin/webhooks.ts). */

const WEBHOOK_EVENT = Type.Union(
  [Type.Literal('item.upserted'), Type.Literal('item.removed'), Type.Literal('store.updated')],
  { description: 'A change type of the change feed.' },
);

const WEBHOOK_FORM = Type.String({
  enum: FORMS.map((form) => form.id),
  description: `The request form whose item shape deliveries carry: each delivery's data is the change exactly as that form's /changes lists it (a: Form A's item; b: Form B's; v1: Form v1's, every field with the effective prices under the specials when it is sent). Default ${DEFAULT_WEBHOOK_FORM}.`,
  examples: ['v1'],
});

const WEBHOOK_EXAMPLE = {
  id: 1,
  credential: 'menu-board',
  dispensary_id: 1,
  url: 'https://hooks.example.com/menu',
  events: null,
  form: 'b',
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
  form: WEBHOOK_FORM,
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

const WEBHOOK_ID = IdText('Webhook id');
export const WebhookParams = Type.Object({
  id: WEBHOOK_ID,
});

export const DeliveryParams = Type.Object({
  id: WEBHOOK_ID,
  delivery_id: Type.String({
    maxLength: 64,
    description: 'Delivery id (the webhook-id header)',
    examples: ['msg_2mVbMw3bS0tWm4dFz8g1Rg'],
  }),
});

export const DeliveriesQuery = Type.Object({
  limit: OptionalCount('^[1-9][0-9]{0,2}$', 500, 'How many, 1 to 500 (default 50), newest first.'),
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
    form: Type.Optional(WEBHOOK_FORM),
  },
  {
    additionalProperties: false,
    title: 'WebhookInput',
    examples: [
      { credential: 'menu-board', dispensary_id: 1, url: 'https://hooks.example.com/menu', form: 'v1' },
    ],
  },
);

export const PatchWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    events: Type.Optional(Nullable(Type.Array(WEBHOOK_EVENT, { minItems: 1 }))),
    enabled: Type.Optional(Type.Boolean()),
    form: Type.Optional(WEBHOOK_FORM),
  },
  { additionalProperties: false, title: 'WebhookPatch', examples: [{ enabled: false, form: 'v1' }] },
);

export const WebhookOut = Type.Object(WEBHOOK_FIELDS, {
  title: 'WebhookSummary',
  examples: [WEBHOOK_EXAMPLE],
});

export const WebhookWithSecretOut = Type.Object(
  {
    ...WEBHOOK_FIELDS,
    secret: Type.String({
      description:
        'The signing secret, shown once: whsec_ and base64 of 32 random bytes. Give it to the integrator.',
    }),
  },
  {
    title: 'CreatedWebhook',
    examples: [{ ...WEBHOOK_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3k5Nc2y0tbY=' }],
  },
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
    title: 'WebhookDelivery',
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
