import { Type } from 'typebox';
import { adminKeyRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { AdminKeyOut, CreateAdminKeyBody, CreatedAdminKeyOut, NameParams } from './admin-keys.schemas.js';
import { actorOf } from './auth.js';
import { adminPlugin } from './route.js';

/** Admin keys are the operator's: every route here needs a key with scope all. */
export const adminKeyRoutes = adminPlugin(['Sync API: admin keys'], (needs, { adminKeys }) => {
  needs('operator').write('POST', '/admin-keys', {
    operationId: 'createAdminKey',
    summary: 'Create an admin key (the key is shown once)',
    secretField: 'key',
    schema: { body: CreateAdminKeyBody, response: { 201: CreatedAdminKeyOut } },
    run: async (request) => adminKeys.create(request.body.name, request.body.scope, actorOf(request)),
  });

  needs('operator').read('/admin-keys', {
    operationId: 'listAdminKeys',
    summary: 'List admin keys (never the keys themselves)',
    schema: { response: { 200: Type.Array(AdminKeyOut) } },
    run: async () => (await adminKeys.list()).map(adminKeyRecord),
  });

  needs('operator').write('DELETE', '/admin-keys/:name', {
    operationId: 'revokeAdminKey',
    summary: 'Revoke an admin key (its console sessions end too)',
    schema: { params: NameParams, response: noContent('Revoked.') },
    run: (request) => adminKeys.revoke(request.params.name, actorOf(request)),
  });
});
