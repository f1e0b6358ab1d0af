import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { adminKeyRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { AdminKeyOut, CreateAdminKeyBody, CreatedAdminKeyOut, NameParams } from './admin-keys.schemas.js';
import { actorOf } from './auth.js';
import type { AdminContext } from './context.js';
import { adminRoutes } from './route.js';

const tags = ['Sync API: admin keys'];

/** Admin keys are the operator's: every route here needs a key with scope all. */
export const adminKeyRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { adminKeys } = services;
  const route = adminRoutes(app, write, tags);

  route.write('POST', '/admin-keys', {
    operationId: 'createAdminKey',
    permission: 'operator',
    summary: 'Create an admin key (the key is shown once)',
    secretField: 'key',
    schema: { body: CreateAdminKeyBody, response: { 201: CreatedAdminKeyOut } },
    run: async (request) => adminKeys.create(request.body.name, request.body.scope, actorOf(request)),
  });

  route.read('/admin-keys', {
    operationId: 'listAdminKeys',
    permission: 'operator',
    summary: 'List admin keys (never the keys themselves)',
    schema: { response: { 200: Type.Array(AdminKeyOut) } },
    run: async () => (await adminKeys.list()).map(adminKeyRecord),
  });

  route.write('DELETE', '/admin-keys/:name', {
    operationId: 'revokeAdminKey',
    permission: 'operator',
    summary: 'Revoke an admin key (its console sessions end too)',
    schema: { params: NameParams, response: noContent('Revoked.') },
    run: async (request) => {
      await adminKeys.revoke(request.params.name, actorOf(request));
    },
  });
};
