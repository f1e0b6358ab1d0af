import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, notModified } from '../../http/error-responses.js';
import { grantRequest } from '../common/grant.js';
import { InventorySchema, inventoryEntries, parseSince, SinceSchema } from '../common/inventory.js';
import { noStore, sendRepresentation } from '../common/snapshot-reply.js';
import { StoreInfoSchema } from '../common/store-info.js';
import { commonViews } from '../common/views.js';
import type { FormContext } from '../form.js';
import { formBMenuSchema } from './item.js';
import { FormBRequestHeaders, refuseRepeatedCredentialHeaders } from './request.js';
import { formBMenuView } from './views.js';

const grantOf = (headers: FormBRequestHeaders) => ({
  username: headers.username,
  password: headers.password,
  token: headers.store,
});

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
    async (request, reply) => {
      const { dispensary } = await grantRequest(
        access,
        request,
        grantOf(request.headers as FormBRequestHeaders),
      );
      const answer = await menu.read(dispensary.id, request.headers['accept-encoding']);
      return sendRepresentation(request, reply, answer, true);
    },
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
    async (request, reply) => {
      const { dispensary } = await grantRequest(
        access,
        request,
        grantOf(request.headers as FormBRequestHeaders),
      );
      const answer = await store.read(dispensary.id, request.headers['accept-encoding']);
      return sendRepresentation(request, reply, answer, true);
    },
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
      const { dispensary } = await grantRequest(
        access,
        request,
        grantOf(request.headers as FormBRequestHeaders),
      );
      if (since === undefined) {
        const answer = await inventory.read(dispensary.id, request.headers['accept-encoding']);
        return sendRepresentation(request, reply, answer, true);
      }
      noStore(reply);
      return inventoryEntries(await menus.items(dispensary.id), since);
    },
  );
};
