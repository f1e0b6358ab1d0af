import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { scopedDispensary } from '../../services/admin-keys.js';
import { deliveryRecord, webhookRecord, webhookWithSecretRecord } from '../../services/records.js';
import type { WebhookScope } from '../../services/webhooks.js';
import { errorResponses, noContent } from '../error-responses.js';
import { actorOf, adminKeyOf } from './auth.js';
import type { AdminContext } from './context.js';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryOut,
  DeliveryParams,
  PatchWebhookBody,
  WebhookOut,
  WebhookParams,
  WebhookWithSecretOut,
} from './schemas.js';
import { writeRoutes } from './write-route.js';

const tags = ['Sync API: webhooks'];

/** A key limited to one dispensary sees and touches only its webhooks. */
const scopeOf = (request: FastifyRequest): WebhookScope => scopedDispensary(adminKeyOf(request).scope);
const webhookOf = (request: FastifyRequest) => Number((request.params as { id: string }).id);

type CreateBody = { credential: string; dispensary_id: number; url: string; events?: string[] | null };

/** Webhook subscriptions: an integrator's credential subscribed to one dispensary's changes. */
export const webhookRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { webhooks } = services;
  const writeRoute = writeRoutes(app, write, tags);

  writeRoute('POST', '/webhooks', {
    operationId: 'createWebhook',
    summary: 'Subscribe a credential to a dispensary’s changes (the signing secret is shown once)',
    description:
      'Each change of the dispensary (item.upserted, item.removed, store.updated) is POSTed to url, signed as Standard Webhooks specifies. The credential must exist and be allowed to read the dispensary.',
    secretField: 'secret',
    schemas: { body: CreateWebhookBody, success: { 201: WebhookWithSecretOut } },
    run: async (request) => {
      const body = request.body as CreateBody;
      const created = await webhooks.create(
        { credential: body.credential, dispensaryId: body.dispensary_id, url: body.url, events: body.events },
        actorOf(request),
        scopeOf(request),
      );
      return webhookWithSecretRecord(created);
    },
  });

  app.get(
    '/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        summary: 'List webhooks',
        tags,
        response: { 200: Type.Array(WebhookOut), ...errorResponses(401, 403, 429, 500, 503) },
      },
    },
    async (request) => (await webhooks.list(scopeOf(request))).map(webhookRecord),
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhook',
        summary: 'Read a webhook',
        tags,
        params: WebhookParams,
        response: { 200: WebhookOut, ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => webhookRecord(await webhooks.get(webhookOf(request), scopeOf(request))),
  );

  writeRoute('PATCH', '/webhooks/:id', {
    operationId: 'updateWebhook',
    summary: 'Change a webhook’s url, events or enabled',
    description: 'Enabling a webhook that was disabled for failing starts its failing period anew.',
    schemas: { params: WebhookParams, body: PatchWebhookBody, success: { 200: WebhookOut } },
    run: async (request) => {
      const body = request.body as { url?: string; events?: string[] | null; enabled?: boolean };
      return webhookRecord(
        await webhooks.update(webhookOf(request), body, actorOf(request), scopeOf(request)),
      );
    },
  });

  writeRoute('DELETE', '/webhooks/:id', {
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook and its deliveries',
    schemas: { params: WebhookParams, success: noContent('Removed.') },
    run: async (request) => {
      await webhooks.remove(webhookOf(request), actorOf(request), scopeOf(request));
    },
  });

  writeRoute('POST', '/webhooks/:id/rotate-secret', {
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret (shown once; the old one stops signing at once)',
    secretField: 'secret',
    schemas: { params: WebhookParams, success: { 200: WebhookWithSecretOut } },
    run: async (request) =>
      webhookWithSecretRecord(
        await webhooks.rotateSecret(webhookOf(request), actorOf(request), scopeOf(request)),
      ),
  });

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List a webhook’s latest deliveries with their attempts',
        tags,
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: Type.Array(DeliveryOut), ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => {
      const { limit } = request.query as { limit?: string };
      const count = limit === undefined ? undefined : Number(limit);
      return (await webhooks.deliveries(webhookOf(request), scopeOf(request), count)).map(deliveryRecord);
    },
  );

  writeRoute('POST', '/webhooks/:id/deliveries/:delivery_id/retry', {
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again now',
    description:
      'A failed delivery becomes pending again with its attempts kept (deliveries to one endpoint stay in cursor order).',
    schemas: { params: DeliveryParams, success: { 200: DeliveryOut } },
    run: async (request) => {
      const { delivery_id: deliveryId } = request.params as { delivery_id: string };
      return deliveryRecord(
        await webhooks.retry(webhookOf(request), deliveryId, actorOf(request), scopeOf(request)),
      );
    },
  });
};
