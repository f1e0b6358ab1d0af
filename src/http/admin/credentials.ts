import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { credentialRecord } from '../../services/records.js';
import { errorResponses, noContent } from '../error-responses.js';
import { actorOf, requireFullScope } from './auth.js';
import type { AdminContext } from './context.js';
import { CredentialOut, IssueCredentialBody, IssuedCredentialOut, UsernameParams } from './schemas.js';
import { writeRoutes } from './write-route.js';

const tags = ['Sync API: credentials'];

type IssueBody = { username: string; expires_at?: string | null; dispensaries?: number[] | null };

/** API credentials are the operator's: every route here needs a key with scope all. */
export const credentialRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { credentials } = services;
  const writeRoute = writeRoutes(app, write, tags);
  app.addHook('preHandler', async (request) => requireFullScope(request));

  writeRoute('POST', '/credentials', {
    operationId: 'issueCredential',
    summary: 'Issue a credential (the password is shown once)',
    secretField: 'password',
    schemas: { body: IssueCredentialBody, success: { 201: IssuedCredentialOut } },
    run: async (request) => {
      const body = request.body as IssueBody;
      const options = { expiresAt: body.expires_at, dispensaryIds: body.dispensaries };
      return credentials.issue(body.username, actorOf(request), options);
    },
  });

  app.get(
    '/credentials',
    {
      schema: {
        operationId: 'listCredentials',
        summary: 'List credentials',
        tags,
        response: { 200: Type.Array(CredentialOut), ...errorResponses(401, 403, 429, 500, 503) },
      },
    },
    async () => (await credentials.list()).map(credentialRecord),
  );

  writeRoute('DELETE', '/credentials/:username', {
    operationId: 'revokeCredential',
    summary: 'Revoke a credential',
    schemas: { params: UsernameParams, success: noContent('Revoked.') },
    run: async (request) => {
      await credentials.revoke((request.params as { username: string }).username, actorOf(request));
    },
  });
};
