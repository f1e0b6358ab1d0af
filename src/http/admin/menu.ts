import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { toCanonicalRecord } from '../../domain/canonical.js';
import { importReportRecord } from '../../services/records.js';
import { errorResponses, noContent } from '../error-responses.js';
import { actorOf, dispensaryOf } from './auth.js';
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
import { writeRoutes } from './write-route.js';

const tags = ['Sync API: menu and inventory'];

const itemOf = (request: FastifyRequest) => Number((request.params as { item_id: string }).item_id);

export const menuRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { menus } = services;
  const writeRoute = writeRoutes(app, write, tags);

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

  writeRoute({
    method: 'PUT',
    url: '/dispensaries/:id/menu',
    summary: 'Full sync: replace the whole menu atomically',
    params: IdParams,
    body: ItemsBody,
    success: { 200: ImportReportOut },
    run: async (request) => {
      const id = dispensaryOf(request);
      const report = await menus.replace(id, menus.validate(request.body), false, actorOf(request));
      return { status: 200, body: importReportRecord(report) };
    },
  });

  writeRoute({
    method: 'PATCH',
    url: '/dispensaries/:id/menu/items',
    summary: 'Partial sync: create or replace items by id',
    params: IdParams,
    body: ItemsBody,
    success: { 200: UpsertOut },
    run: async (request) => ({
      status: 200,
      body: await menus.upsert(dispensaryOf(request), request.body, actorOf(request)),
    }),
  });

  writeRoute({
    method: 'PATCH',
    url: '/dispensaries/:id/menu/items/:item_id',
    summary: 'Change some fields of one item, such as active',
    params: ItemParams,
    body: ItemPatchBody,
    success: { 200: CanonicalItem },
    run: async (request) => ({
      status: 200,
      body: await menus.patchItem(dispensaryOf(request), itemOf(request), request.body, actorOf(request)),
    }),
  });

  writeRoute({
    method: 'DELETE',
    url: '/dispensaries/:id/menu/items/:item_id',
    summary: 'Delete one item',
    params: ItemParams,
    success: noContent('Deleted.'),
    run: async (request) => {
      await menus.deleteItem(dispensaryOf(request), itemOf(request), actorOf(request));
      return { status: 204, body: null };
    },
  });

  writeRoute({
    method: 'PATCH',
    url: '/dispensaries/:id/inventory',
    summary: 'Set many stock levels in one transaction',
    params: IdParams,
    body: StockBody,
    success: { 200: StockOut },
    run: async (request) => ({
      status: 200,
      body: await menus.setStock(dispensaryOf(request), request.body, actorOf(request)),
    }),
  });
};
