import { Type } from 'typebox';
import { accessRequestRecord, integratorRecord } from '../../../services/records.js';
import { principalOf } from './auth.js';
import type { AdminContext } from './context.js';
import {
  AccessRequestBody,
  AccessRequestOut,
  AccessRequestParams,
  AccessTokenOut,
  IntegratorOut,
  IntegratorParams,
  PortalOut,
  RotatedPasswordOut,
} from './integrators.schemas.js';
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

  // The integrator's own portal (its console view): permission `developer`, integrators only.
  needs('developer').read('/developer', {
    operationId: 'getIntegratorPortal',
    summary: 'The signed-in integrator: its registration, credential and requests to read dispensaries',
    schema: { response: { 200: PortalOut } },
    run: async (request) => {
      const { integrator, access } = await integrators.portal(principalOf(request));
      return { integrator: integratorRecord(integrator), access: access.map(accessRequestRecord) };
    },
  });

  needs('developer').write('POST', '/developer/rotate-password', {
    operationId: 'rotateIntegratorPassword',
    summary: 'A new password for the integrator’s own API credential (shown once; the old one stops working)',
    secretField: 'password',
    schema: { response: { 200: RotatedPasswordOut } },
    run: (request) => integrators.rotatePassword(principalOf(request)),
  });

  needs('developer').write('POST', '/developer/access', {
    operationId: 'requestDispensaryAccess',
    summary: 'Ask to read a published dispensary, by its public name; its managers decide',
    schema: { body: AccessRequestBody, response: { 201: AccessRequestOut } },
    run: async (request) =>
      accessRequestRecord(await integrators.requestAccess(principalOf(request), request.body.dispensary)),
  });

  needs('developer').write('POST', '/developer/access/:id/token', {
    operationId: 'issueIntegratorToken',
    summary: 'Your own token for a dispensary you may read (shown once; an earlier one stops working)',
    secretField: 'token',
    schema: { params: AccessRequestParams, response: { 200: AccessTokenOut } },
    run: async (request) => {
      const issued = await integrators.issueAccessToken(principalOf(request), idOf(request));
      return { dispensary_id: issued.dispensaryId, token: issued.token };
    },
  });

  // The dispensaries' managers decide: permission `integrators` (the token integrators read with).
  needs('integrators').read('/access-requests', {
    operationId: 'listAccessRequests',
    summary: 'Integrators’ requests to read the dispensaries you manage',
    schema: { response: { 200: Type.Array(AccessRequestOut) } },
    run: async (request) => (await integrators.accessRequests(principalOf(request))).map(accessRequestRecord),
  });

  for (const [decision, verb] of [
    ['approved', 'approve'],
    ['declined', 'decline'],
  ] as const) {
    needs('integrators').write('POST', `/access-requests/:id/${verb}`, {
      operationId: `${verb}AccessRequest`,
      summary:
        verb === 'approve'
          ? 'Approve a waiting request: the integrator’s credential may read the dispensary'
          : 'Decline a waiting request, or withdraw an approved one (its credential stops reading the dispensary)',
      schema: { params: AccessRequestParams, response: { 200: AccessRequestOut } },
      run: async (request) =>
        accessRequestRecord(await integrators.decideAccess(principalOf(request), idOf(request), decision)),
    });
  }
});
