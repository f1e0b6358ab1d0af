import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { adminKeyRecord } from '../../services/records.js';
import { errorResponses, noContent } from '../error-responses.js';
import { actorOf, requireFullScope } from './auth.js';
import type { AdminContext } from './context.js';
import { AdminKeyOut, CreateAdminKeyBody, CreatedAdminKeyOut, NameParams } from './schemas.js';
import { writeRoutes } from './write-route.js';

const tags = ['Sync API: admin keys'];

/** Admin keys are the operator's: every route here needs a key with scope all. */
export const adminKeyRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { adminKeys } = services;
  const writeRoute = writeRoutes(app, write, tags);
  app.addHook('preHandler', async (request) => requireFullScope(request));

  writeRoute('POST', '/admin-keys', {
    operationId: 'createAdminKey',
    summary: 'Create an admin key (the key is shown once)',
    secretField: 'key',
    schemas: { body: CreateAdminKeyBody, success: { 201: CreatedAdminKeyOut } },
    run: async (request) => {
      const body = request.body as { name: string; scope: string };
      return adminKeys.create(body.name, body.scope, actorOf(request));
    },
  });

  app.get(
    '/admin-keys',
    {
      schema: {
        operationId: 'listAdminKeys',
        summary: 'List admin keys (never the keys themselves)',
        tags,
        response: { 200: Type.Array(AdminKeyOut), ...errorResponses(401, 403, 429, 500, 503) },
      },
    },
    async () => (await adminKeys.list()).map(adminKeyRecord),
  );

  writeRoute('DELETE', '/admin-keys/:name', {
    operationId: 'revokeAdminKey',
    summary: 'Revoke an admin key (its console sessions end too)',
    schemas: { params: NameParams, success: noContent('Revoked.') },
    run: async (request) => {
      await adminKeys.revoke((request.params as { name: string }).name, actorOf(request));
    },
  });
};
