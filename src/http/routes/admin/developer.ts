import { Type } from 'typebox';
import type { DeveloperPortal } from '../../../services/developer-portal.js';
import { deliveryRecord, webhookRecord, webhookWithSecretRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { UsageOut } from './activity.schemas.js';
import { principalOf } from './auth.js';
import type { AdminContext } from './context.js';
import { OwnUsageQuerystring, OwnWebhookBody } from './developer.schemas.js';
import { adminPlugin } from './route.js';
import { deliveryLimitOf, webhookOf } from './webhooks.js';
import {
  DeliveriesQuery,
  DeliveryOut,
  PatchWebhookBody,
  WebhookOut,
  WebhookParams,
  WebhookWithSecretOut,
} from './webhooks.schemas.js';

export type WithPortal = AdminContext & { portal: DeveloperPortal };

/**
 * The rest of the integrator's own portal: its credential's usage per hour, and its own webhooks
 * (permission `developer`, integrators only; the operators' routes are /usage and /webhooks).
 */
export const developerRoutes = adminPlugin<WithPortal>(
  ['Sync API: integrators'],
  (needs, _services, { portal }) => {
    const developer = needs('developer');

    developer.read('/developer/usage', {
      operationId: 'getIntegratorUsage',
      summary: 'Requests per hour of your own API credential',
      description:
        'Counted as GET /usage counts them (in memory, written at most once a minute); only your own credential’s.',
      schema: { querystring: OwnUsageQuerystring, response: { 200: Type.Array(UsageOut) } },
      run: (request) => portal.usage(principalOf(request), Number(request.query.hours ?? 24)),
    });

    developer.read('/developer/webhooks', {
      operationId: 'listIntegratorWebhooks',
      summary: 'Your own webhooks',
      schema: { response: { 200: Type.Array(WebhookOut) } },
      run: async (request) => (await portal.listWebhooks(principalOf(request))).map(webhookRecord),
    });

    developer.write('POST', '/developer/webhooks', {
      operationId: 'createIntegratorWebhook',
      summary: 'Subscribe your credential to the changes of a dispensary you may read (secret shown once)',
      description:
        'The url must be https:// and must not point at a loopback, private or link-local address. The server allows each integrator a limited number of webhooks (409 past it).',
      secretField: 'secret',
      schema: { body: OwnWebhookBody, response: { 201: WebhookWithSecretOut } },
      run: async (request) => {
        const { dispensary_id: dispensaryId, url, events, form } = request.body;
        const created = await portal.createWebhook(principalOf(request), { dispensaryId, url, events, form });
        return webhookWithSecretRecord(created);
      },
    });

    developer.write('PATCH', '/developer/webhooks/:id', {
      operationId: 'updateIntegratorWebhook',
      summary: 'Change the url, events or enabled of one of your webhooks',
      schema: { params: WebhookParams, body: PatchWebhookBody, response: { 200: WebhookOut } },
      run: async (request) =>
        webhookRecord(await portal.updateWebhook(principalOf(request), webhookOf(request), request.body)),
    });

    developer.write('DELETE', '/developer/webhooks/:id', {
      operationId: 'deleteIntegratorWebhook',
      summary: 'Remove one of your webhooks and its deliveries',
      schema: { params: WebhookParams, response: noContent('Removed.') },
      run: (request) => portal.removeWebhook(principalOf(request), webhookOf(request)),
    });

    developer.write('POST', '/developer/webhooks/:id/rotate-secret', {
      operationId: 'rotateIntegratorWebhookSecret',
      summary: 'Replace the signing secret of one of your webhooks (shown once)',
      secretField: 'secret',
      schema: { params: WebhookParams, response: { 200: WebhookWithSecretOut } },
      run: async (request) =>
        webhookWithSecretRecord(await portal.rotateWebhookSecret(principalOf(request), webhookOf(request))),
    });

    developer.read('/developer/webhooks/:id/deliveries', {
      operationId: 'listIntegratorWebhookDeliveries',
      summary: 'The latest deliveries of one of your webhooks, with their attempts',
      schema: {
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: Type.Array(DeliveryOut) },
      },
      run: async (request) =>
        (await portal.deliveries(principalOf(request), webhookOf(request), deliveryLimitOf(request))).map(
          deliveryRecord,
        ),
    });
  },
);
