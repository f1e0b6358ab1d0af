import { Type } from 'typebox';
import { integratorRecord } from '../../../services/records.js';
import { principalOf } from './auth.js';
import type { AdminContext } from './context.js';
import { IntegratorOut, IntegratorParams } from './integrators.schemas.js';
import { adminPlugin } from './route.js';

const tags = ['Sync API: integrators'];

/**
 * Integrators who registered at /developers, for the operator to approve or decline (the console's
 * Team page and `menu-api integrator` call the same service).
 */
export const integratorRoutes = adminPlugin<AdminContext>(tags, (needs, { integrators }) => {
  const idOf = (request: { params: { id: string } }) => Number(request.params.id);

  needs('operator').read('/integrators', {
    operationId: 'listIntegrators',
    summary: 'List the integrators who registered at /developers, with where each registration is',
    schema: { response: { 200: Type.Array(IntegratorOut) } },
    run: async (request) => (await integrators.list(principalOf(request))).map(integratorRecord),
  });

  needs('operator').write('POST', '/integrators/:id/approve', {
    operationId: 'approveIntegrator',
    summary: 'Approve a waiting integrator: it may sign in, and its API credential is created',
    schema: { params: IntegratorParams, response: { 200: IntegratorOut } },
    run: async (request) => integratorRecord(await integrators.approve(idOf(request), principalOf(request))),
  });

  needs('operator').write('POST', '/integrators/:id/decline', {
    operationId: 'declineIntegrator',
    summary: 'Decline a waiting integrator',
    schema: { params: IntegratorParams, response: { 200: IntegratorOut } },
    run: async (request) => integratorRecord(await integrators.decline(idOf(request), principalOf(request))),
  });
});
