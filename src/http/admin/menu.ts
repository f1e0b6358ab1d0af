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
        operationId: 'getMenu',
        summary: 'Read the whole menu (canonical items, active and inactive)',
        tags,
        params: IdParams,
        response: { 200: Type.Array(CanonicalItem), ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => (await menus.items(dispensaryOf(request))).map(toCanonicalRecord),
  );

  writeRoute('PUT', '/dispensaries/:id/menu', {
    operationId: 'replaceMenu',
    summary: 'Full sync: replace the whole menu atomically',
    schemas: { params: IdParams, body: ItemsBody, success: { 200: ImportReportOut } },
    run: async (request) => {
      const id = dispensaryOf(request);
      const report = await menus.replace(id, menus.validate(request.body), false, actorOf(request));
      return importReportRecord(report);
    },
  });

  writeRoute('PATCH', '/dispensaries/:id/menu/items', {
    operationId: 'upsertMenuItems',
    summary: 'Partial sync: create or replace items by id',
    schemas: { params: IdParams, body: ItemsBody, success: { 200: UpsertOut } },
    run: (request) => menus.upsert(dispensaryOf(request), request.body, actorOf(request)),
  });

  writeRoute('PATCH', '/dispensaries/:id/menu/items/:item_id', {
    operationId: 'patchMenuItem',
    summary: 'Change some fields of one item, such as active',
    schemas: { params: ItemParams, body: ItemPatchBody, success: { 200: CanonicalItem } },
    run: (request) => menus.patchItem(dispensaryOf(request), itemOf(request), request.body, actorOf(request)),
  });

  writeRoute('DELETE', '/dispensaries/:id/menu/items/:item_id', {
    operationId: 'deleteMenuItem',
    summary: 'Delete one item',
    schemas: { params: ItemParams, success: noContent('Deleted.') },
    run: async (request) => {
      await menus.deleteItem(dispensaryOf(request), itemOf(request), actorOf(request));
    },
  });

  writeRoute('PATCH', '/dispensaries/:id/inventory', {
    operationId: 'setStockLevels',
    summary: 'Set many stock levels in one transaction',
    schemas: { params: IdParams, body: StockBody, success: { 200: StockOut } },
    run: (request) => menus.setStock(dispensaryOf(request), request.body, actorOf(request)),
  });
};
