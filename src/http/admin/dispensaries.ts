import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { toStoreInfoRecord } from '../../domain/store-info.js';
import { scopedDispensary } from '../../services/admin-keys.js';
import { errorResponses, noContent } from '../error-responses.js';
import { actorOf, adminKeyOf, requireDispensaryScope, requireFullScope } from './auth.js';
import type { AdminContext } from './context.js';
import {
  CreateDispensaryBody,
  CreatedDispensaryOut,
  DispensaryOut,
  DispensarySummaryOut,
  IdParams,
  StoreInfoBody,
  TokenOut,
} from './schemas.js';

const tags = ['Sync API: dispensaries'];

export const dispensaryRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { dispensaries } = services;
  const describe = async (id: number) => {
    const dispensary = await dispensaries.get(id);
    return {
      id: dispensary.id,
      name: dispensary.name,
      created_at: dispensary.createdAt,
      updated_at: dispensary.updatedAt,
      store: toStoreInfoRecord(await dispensaries.storeInfo(id)),
    };
  };

  app.post(
    '/dispensaries',
    {
      schema: {
        summary: 'Create a dispensary',
        tags,
        body: CreateDispensaryBody,
        response: {
          201: CreatedDispensaryOut,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(
        request,
        reply,
        async () => {
          requireFullScope(request);
          const { name, ...store } = request.body as { name: string } & Record<string, unknown>;
          const created = await dispensaries.createWithStore(name, store, actorOf(request));
          return {
            status: 201,
            body: { id: created.id, name: created.name, token: created.token, store: created.store },
          };
        },
        'token',
      ),
  );

  app.get(
    '/dispensaries',
    {
      schema: {
        summary: 'List dispensaries (a scoped key sees its own)',
        tags,
        response: { 200: Type.Array(DispensarySummaryOut), ...errorResponses(401, 403, 429, 500, 503) },
      },
    },
    async (request) => {
      const limit = scopedDispensary(adminKeyOf(request).scope);
      const all = await dispensaries.list();
      return all
        .filter((dispensary) => limit === undefined || dispensary.id === limit)
        .map((d) => ({
          id: d.id,
          name: d.name,
          items: d.itemCount,
          active_items: d.activeItemCount,
          created_at: d.createdAt,
          updated_at: d.updatedAt,
        }));
    },
  );

  app.get(
    '/dispensaries/:id',
    {
      schema: {
        summary: 'Read a dispensary and its store information',
        tags,
        params: IdParams,
        response: { 200: DispensaryOut, ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => {
      const id = Number((request.params as { id: string }).id);
      requireDispensaryScope(request, id);
      return describe(id);
    },
  );

  app.patch(
    '/dispensaries/:id',
    {
      schema: {
        summary: 'Update store information',
        tags,
        params: IdParams,
        body: StoreInfoBody,
        response: {
          200: DispensaryOut,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(request, reply, async () => {
        const id = Number((request.params as { id: string }).id);
        requireDispensaryScope(request, id);
        await dispensaries.updateStoreInfo(id, request.body, actorOf(request));
        return { status: 200, body: await describe(id) };
      }),
  );

  app.post(
    '/dispensaries/:id/rotate-token',
    {
      schema: {
        summary: 'Replace the dispensary token',
        description:
          'The old token keeps working for grace_seconds (JSON body, optional; default 86400 = 24 h; 0 ends it at once).',
        tags,
        params: IdParams,
        response: { 200: TokenOut, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503) },
      },
    },
    (request, reply) =>
      write(
        request,
        reply,
        async () => {
          const id = Number((request.params as { id: string }).id);
          requireDispensaryScope(request, id);
          const grace = (request.body as { grace_seconds?: number } | undefined)?.grace_seconds;
          return { status: 200, body: await dispensaries.rotateToken(id, actorOf(request), grace) };
        },
        'token',
      ),
  );

  app.delete(
    '/dispensaries/:id',
    {
      schema: {
        summary: 'Delete a dispensary and its menu',
        tags,
        params: IdParams,
        response: {
          ...noContent('Deleted, with its menu.'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(request, reply, async () => {
        const id = Number((request.params as { id: string }).id);
        requireFullScope(request);
        await dispensaries.remove(id, actorOf(request));
        return { status: 204, body: null };
      }),
  );
};
