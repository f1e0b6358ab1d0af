import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { toCanonicalRecord } from '../../domain/canonical.js';
import { errorResponses, noContent } from '../error-responses.js';
import { actorOf, requireDispensaryScope } from './auth.js';
import type { AdminContext } from './context.js';
import {
  CanonicalItem,
  IdParams,
  ImportReportOut,
  ItemParams,
  ItemPatchBody,
  ItemsBody,
  StockBody,
  StockOut,
  UpsertOut,
} from './schemas.js';

const tags = ['Sync API: menu and inventory'];

/** The dispensary of the path, after checking the key may touch it. */
function dispensaryOf(request: FastifyRequest): number {
  const id = Number((request.params as { id: string }).id);
  requireDispensaryScope(request, id);
  return id;
}

const itemOf = (request: FastifyRequest) => Number((request.params as { item_id: string }).item_id);

export const menuRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { menus } = services;

  app.get(
    '/dispensaries/:id/menu',
    {
      schema: {
        summary: 'Read the whole menu (canonical items, active and inactive)',
        tags,
        params: IdParams,
        response: { 200: Type.Array(CanonicalItem), ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => (await menus.items(dispensaryOf(request))).map(toCanonicalRecord),
  );

  app.put(
    '/dispensaries/:id/menu',
    {
      schema: {
        summary: 'Full sync: replace the whole menu atomically',
        tags,
        params: IdParams,
        body: ItemsBody,
        response: {
          200: ImportReportOut,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(request, reply, async () => {
        const id = dispensaryOf(request);
        const report = await menus.replace(id, menus.validate(request.body), false, actorOf(request));
        return {
          status: 200,
          body: {
            dispensary_id: report.dispensaryId,
            items: report.items,
            active_items: report.activeItems,
            price_entries: report.priceEntries,
          },
        };
      }),
  );

  app.patch(
    '/dispensaries/:id/menu/items',
    {
      schema: {
        summary: 'Partial sync: create or replace items by id',
        tags,
        params: IdParams,
        body: ItemsBody,
        response: {
          200: UpsertOut,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(request, reply, async () => ({
        status: 200,
        body: await menus.upsert(dispensaryOf(request), request.body, actorOf(request)),
      })),
  );

  app.patch(
    '/dispensaries/:id/menu/items/:item_id',
    {
      schema: {
        summary: 'Change some fields of one item, such as active',
        tags,
        params: ItemParams,
        body: ItemPatchBody,
        response: {
          200: CanonicalItem,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(request, reply, async () => ({
        status: 200,
        body: await menus.patchItem(dispensaryOf(request), itemOf(request), request.body, actorOf(request)),
      })),
  );

  app.delete(
    '/dispensaries/:id/menu/items/:item_id',
    {
      schema: {
        summary: 'Delete one item',
        tags,
        params: ItemParams,
        response: {
          ...noContent('Deleted.'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(request, reply, async () => {
        await menus.deleteItem(dispensaryOf(request), itemOf(request), actorOf(request));
        return { status: 204, body: null };
      }),
  );

  app.patch(
    '/dispensaries/:id/inventory',
    {
      schema: {
        summary: 'Set many stock levels in one transaction',
        tags,
        params: IdParams,
        body: StockBody,
        response: { 200: StockOut, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503) },
      },
    },
    (request, reply) =>
      write(request, reply, async () => ({
        status: 200,
        body: await menus.setStock(dispensaryOf(request), request.body, actorOf(request)),
      })),
  );
};
