import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { PUBLISHING_FIELDS, publishingRecord } from '../../domain/publishing.js';
import { toStoreInfoRecord } from '../../domain/store-info.js';
import { scopedDispensary } from '../../services/admin-keys.js';
import { dispensarySummaryRecord } from '../../services/records.js';
import { errorResponses, noContent } from '../error-responses.js';
import { actorOf, adminKeyOf, dispensaryOf, pathId, requireFullScope } from './auth.js';
import type { AdminContext } from './context.js';
import {
  CreateDispensaryBody,
  CreatedDispensaryOut,
  DispensaryOut,
  DispensarySummaryOut,
  IdParams,
  RotateTokenBody,
  StoreInfoBody,
  TokenOut,
} from './schemas.js';
import { writeRoutes } from './write-route.js';

const tags = ['Sync API: dispensaries'];

export const dispensaryRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { dispensaries } = services;
  const writeRoute = writeRoutes(app, write, tags);
  const describe = async (id: number) => {
    const dispensary = await dispensaries.get(id);
    return {
      id: dispensary.id,
      name: dispensary.name,
      created_at: dispensary.createdAt,
      updated_at: dispensary.updatedAt,
      ...publishingRecord(await dispensaries.publishing(id)),
      store: toStoreInfoRecord(await dispensaries.storeInfo(id)),
    };
  };

  writeRoute('POST', '/dispensaries', {
    operationId: 'createDispensary',
    summary: 'Create a dispensary',
    description:
      'Answers the dispensary token once. A dispensary name need not be unique: two dispensaries may share one, and the id tells them apart.',
    secretField: 'token',
    schemas: { body: CreateDispensaryBody, success: { 201: CreatedDispensaryOut } },
    run: async (request) => {
      requireFullScope(request);
      const { name, ...store } = request.body as { name: string } & Record<string, unknown>;
      const created = await dispensaries.createWithStore(name, store, actorOf(request));
      return { id: created.id, name: created.name, token: created.token, store: created.store };
    },
  });

  app.get(
    '/dispensaries',
    {
      schema: {
        operationId: 'listDispensaries',
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
        .map(dispensarySummaryRecord);
    },
  );

  app.get(
    '/dispensaries/:id',
    {
      schema: {
        operationId: 'getDispensary',
        summary: 'Read a dispensary and its store information',
        tags,
        params: IdParams,
        response: { 200: DispensaryOut, ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => {
      return describe(dispensaryOf(request));
    },
  );

  writeRoute('PATCH', '/dispensaries/:id', {
    operationId: 'updateDispensary',
    summary: 'Update store information; publish or unpublish',
    schemas: { params: IdParams, body: StoreInfoBody, success: { 200: DispensaryOut } },
    run: async (request) => {
      const id = dispensaryOf(request);
      const body = request.body as Record<string, unknown>;
      if (Object.keys(body).some((field) => field in PUBLISHING_FIELDS)) {
        await dispensaries.update(id, body, actorOf(request));
      } else {
        await dispensaries.updateStoreInfo(id, body, actorOf(request));
      }
      return describe(id);
    },
  });

  writeRoute('POST', '/dispensaries/:id/rotate-token', {
    operationId: 'rotateDispensaryToken',
    summary: 'Replace the dispensary token',
    description:
      'The old token keeps working for grace_seconds (JSON body, optional; default 86400 = 24 h; 0 ends it at once).',
    secretField: 'token',
    schemas: { params: IdParams, body: RotateTokenBody, success: { 200: TokenOut } },
    run: async (request) => {
      const id = dispensaryOf(request);
      const grace = (request.body as { grace_seconds?: number } | undefined)?.grace_seconds;
      return dispensaries.rotateToken(id, actorOf(request), grace);
    },
  });

  writeRoute('DELETE', '/dispensaries/:id', {
    operationId: 'deleteDispensary',
    summary: 'Delete a dispensary and its menu',
    schemas: { params: IdParams, success: noContent('Deleted, with its menu.') },
    run: async (request) => {
      requireFullScope(request);
      await dispensaries.remove(pathId(request), actorOf(request));
    },
  });
};
