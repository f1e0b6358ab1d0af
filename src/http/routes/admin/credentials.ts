import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { credentialRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { actorOf } from './auth.js';
import type { AdminContext } from './context.js';
import {
  CredentialOut,
  IssueCredentialBody,
  IssuedCredentialOut,
  UsernameParams,
} from './credentials.schemas.js';
import { adminRoutes } from './route.js';

const tags = ['Sync API: credentials'];

/** API credentials are the operator's: every route here needs a key with scope all. */
export const credentialRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { credentials } = services;
  const route = adminRoutes(app, write, tags);

  route.write('POST', '/credentials', {
    operationId: 'issueCredential',
    permission: 'operator',
    summary: 'Issue a credential (the password is shown once)',
    secretField: 'password',
    schema: { body: IssueCredentialBody, response: { 201: IssuedCredentialOut } },
    run: async (request) => {
      const { username, expires_at: expiresAt, dispensaries: dispensaryIds } = request.body;
      return credentials.issue(username, actorOf(request), { expiresAt, dispensaryIds });
    },
  });

  route.read('/credentials', {
    operationId: 'listCredentials',
    permission: 'operator',
    summary: 'List credentials',
    schema: { response: { 200: Type.Array(CredentialOut) } },
    run: async () => (await credentials.list()).map(credentialRecord),
  });

  route.write('DELETE', '/credentials/:username', {
    operationId: 'revokeCredential',
    permission: 'operator',
    summary: 'Revoke a credential',
    schema: { params: UsernameParams, response: noContent('Revoked.') },
    run: async (request) => {
      await credentials.revoke(request.params.username, actorOf(request));
    },
  });
};
