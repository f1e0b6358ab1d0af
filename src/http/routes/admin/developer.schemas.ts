import { Type } from 'typebox';
import { OptionalCount } from './shared.schemas.js';
import { CreateWebhookBody } from './webhooks.schemas.js';

/** The schemas of the integrator's usage and webhook routes (src/http/routes/admin/developer.ts). */

export const OwnUsageQuerystring = Type.Object({
  hours: OptionalCount(
    '^([1-9]|[1-9][0-9]|1[0-5][0-9]|16[0-8])$',
    168,
    '1 to 168 hours back, from the start of that hour (default 24).',
  ),
});

/** A subscription of the integrator's own credential: the webhook input without `credential`. */
export const OwnWebhookBody = Type.Omit(CreateWebhookBody, ['credential'], {
  additionalProperties: false,
  title: 'OwnWebhookInput',
  examples: [{ dispensary_id: 1, url: 'https://hooks.example.com/menu', events: ['item.upserted'] }],
});
