import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { deliveryRecord, webhookRecord, webhookWithSecretRecord } from '../../../services/records.js';
import type { WebhookScope } from '../../../services/webhooks.js';
import { noContent } from '../../pipeline/error-responses.js';
import { actorOf, reachOf, requireDispensary } from './auth.js';
import { adminPlugin } from './route.js';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryOut,
  DeliveryParams,
  PatchWebhookBody,
  WebhookOut,
  WebhookParams,
  WebhookWithSecretOut,
} from './webhooks.schemas.js';

/** A key or an account limited to some dispensaries sees and touches only their webhooks. */
const scopeOf = (request: Pick<FastifyRequest, 'principal'>): WebhookScope => reachOf(request);
/** The webhook of the path (`:id`; the route schema has checked it is a number). */
export const webhookOf = (request: { params: { id: string } }) => Number(request.params.id);
/** How many deliveries the query asks for (DeliveriesQuery has checked it), or the default. */
export const deliveryLimitOf = (request: { query: { limit?: string } }) =>
  request.query.limit === undefined ? undefined : Number(request.query.limit);

/** Webhook subscriptions: an integrator's credential subscribed to one dispensary's changes. */
export const webhookRoutes = adminPlugin(['Sync API: webhooks'], (needs, { webhooks }) => {
  needs('webhooks').write('POST', '/webhooks', {
    operationId: 'createWebhook',
    summary: 'Subscribe a credential to a dispensary’s changes (the signing secret is shown once)',
    description:
      'Each change of the dispensary (item.upserted, item.removed, store.updated) is POSTed to url, signed as Standard Webhooks specifies, its data the change as the /changes of the chosen form lists it (form: a, b or v1; default b). The credential must exist and be allowed to read the dispensary.',
    secretField: 'secret',
    schema: { body: CreateWebhookBody, response: { 201: WebhookWithSecretOut } },
    run: async (request) => {
      const { credential, dispensary_id: dispensaryId, url, events, form } = request.body;
      if (typeof dispensaryId === 'number') requireDispensary(request, dispensaryId);
      const created = await webhooks.create(
        { credential, dispensaryId, url, events, form },
        actorOf(request),
        scopeOf(request),
      );
      return webhookWithSecretRecord(created);
    },
  });

  needs('webhooks').read('/webhooks', {
    operationId: 'listWebhooks',
    summary: 'List webhooks',
    schema: { response: { 200: Type.Array(WebhookOut) } },
    run: async (request) => (await webhooks.list(scopeOf(request))).map(webhookRecord),
  });

  needs('webhooks').read('/webhooks/:id', {
    operationId: 'getWebhook',
    summary: 'Read a webhook',
    schema: { params: WebhookParams, response: { 200: WebhookOut } },
    run: async (request) => webhookRecord(await webhooks.get(webhookOf(request), scopeOf(request))),
  });

  needs('webhooks').write('PATCH', '/webhooks/:id', {
    operationId: 'updateWebhook',
    summary: 'Change a webhook’s url, events, form or enabled',
    description: 'Enabling a webhook that was disabled for failing starts its failing period anew.',
    schema: { params: WebhookParams, body: PatchWebhookBody, response: { 200: WebhookOut } },
    run: async (request) => {
      return webhookRecord(
        await webhooks.update(webhookOf(request), request.body, actorOf(request), scopeOf(request)),
      );
    },
  });

  needs('webhooks').write('DELETE', '/webhooks/:id', {
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook and its deliveries',
    schema: { params: WebhookParams, response: noContent('Removed.') },
    run: (request) => webhooks.remove(webhookOf(request), actorOf(request), scopeOf(request)),
  });

  needs('webhooks').write('POST', '/webhooks/:id/rotate-secret', {
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret (shown once; the old one stops signing at once)',
    secretField: 'secret',
    schema: { params: WebhookParams, response: { 200: WebhookWithSecretOut } },
    run: async (request) =>
      webhookWithSecretRecord(
        await webhooks.rotateSecret(webhookOf(request), actorOf(request), scopeOf(request)),
      ),
  });

  needs('webhooks').read('/webhooks/:id/deliveries', {
    operationId: 'listWebhookDeliveries',
    summary: 'List a webhook’s latest deliveries with their attempts',
    schema: {
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: Type.Array(DeliveryOut) },
    },
    run: async (request) =>
      (await webhooks.deliveries(webhookOf(request), scopeOf(request), deliveryLimitOf(request))).map(
        deliveryRecord,
      ),
  });

  needs('webhooks').write('POST', '/webhooks/:id/deliveries/:delivery_id/retry', {
    operationId: 'retryWebhookDelivery',
    summary: 'Send a failed or pending delivery again now',
    description:
      'The delivery becomes pending again, due now, with its webhook-id and attempts kept: it goes before the endpoint’s newer pending deliveries, and a failed one that fails again is failed at once. A delivered one is not sent again: 409 conflict, its record unchanged (a receiver that lost it reads the change from /changes).',
    schema: { params: DeliveryParams, response: { 200: DeliveryOut } },
    run: async (request) => {
      const { delivery_id: deliveryId } = request.params;
      return deliveryRecord(
        await webhooks.retry(webhookOf(request), deliveryId, actorOf(request), scopeOf(request)),
      );
    },
  });
});
