import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, notModified } from '../../http/error-responses.js';
import { grantRequest } from '../common/grant.js';
import { InventorySchema, inventoryEntries, parseSince, SinceSchema } from '../common/inventory.js';
import { noStore, sendSnapshot } from '../common/snapshot-reply.js';
import { StoreInfoSchema } from '../common/store-info.js';
import { commonViews } from '../common/views.js';
import type { FormContext } from '../form.js';
import { formBMenuSchema } from './item.js';
import { FormBRequestHeaders, refuseRepeatedCredentialHeaders } from './request.js';
import { formBMenuView } from './views.js';

/** The credential headers, validated by the route's schema before any handler runs. */
const grantOf = (headers: object) => {
  const { username, password, store } = headers as FormBRequestHeaders;
  return { username, password, token: store };
};

const InventoryQuery = Type.Object({ since: Type.Optional(SinceSchema) });

export const formBRoutes: FastifyPluginAsync<FormContext> = async (
  app,
  { access, menus, snapshots, formBNames },
) => {
  const menu = formBMenuView(snapshots, formBNames);
  const { store, inventory } = commonViews(snapshots, menus);

  app.get(
    '/menu',
    {
      schema: {
        summary: 'List menu items (Form B)',
        description:
          'Credentials and the dispensary token travel in request headers. Only active items are listed.',
        tags: ['Form B'],
        headers: FormBRequestHeaders,
        response: {
          200: formBMenuSchema(formBNames),
          ...notModified(),
          ...errorResponses(400, 401, 403, 429, 500, 503),
        },
      },
      onRequest: refuseRepeatedCredentialHeaders,
    },
    (request, reply) =>
      sendSnapshot(request, reply, grantRequest(access, request, grantOf(request.headers)), menu, true),
  );

  app.get(
    '/store',
    {
      schema: {
        summary: 'Store information (Form B)',
        description:
          'Address, hours, currency and other facts about the dispensary. Unknown values are null.',
        tags: ['Form B'],
        headers: FormBRequestHeaders,
        response: { 200: StoreInfoSchema, ...notModified(), ...errorResponses(400, 401, 403, 429, 500, 503) },
      },
      onRequest: refuseRepeatedCredentialHeaders,
    },
    (request, reply) =>
      sendSnapshot(request, reply, grantRequest(access, request, grantOf(request.headers)), store, true),
  );

  app.get(
    '/inventory',
    {
      schema: {
        summary: 'Real-time inventory (Form B)',
        description:
          'One entry per price entry of every active item. With ?since=, only entries changed after that time.',
        tags: ['Form B'],
        headers: FormBRequestHeaders,
        querystring: InventoryQuery,
        response: { 200: InventorySchema, ...notModified(), ...errorResponses(400, 401, 403, 429, 500, 503) },
      },
      onRequest: refuseRepeatedCredentialHeaders,
    },
    async (request, reply) => {
      const since = parseSince((request.query as { since?: string }).since);
      const granted = grantRequest(access, request, grantOf(request.headers));
      if (since === undefined) return sendSnapshot(request, reply, granted, inventory, true);
      const { dispensary } = await granted;
      noStore(reply);
      return inventoryEntries(await menus.items(dispensary.id), since);
    },
  );
};
