import { Type } from 'typebox';
import { credentialRecord } from '../../../services/records.js';
import { noContent } from '../../pipeline/error-responses.js';
import { actorOf } from './auth.js';
import {
  CredentialOut,
  IssueCredentialBody,
  IssuedCredentialOut,
  UsernameParams,
} from './credentials.schemas.js';
import { adminPlugin } from './route.js';

/** API credentials are the operator's: every route here needs a key with scope all. */
export const credentialRoutes = adminPlugin(['Sync API: credentials'], (needs, { credentials }) => {
  needs('operator').write('POST', '/credentials', {
    operationId: 'issueCredential',
    summary: 'Issue a credential (the password is shown once)',
    secretField: 'password',
    schema: { body: IssueCredentialBody, response: { 201: IssuedCredentialOut } },
    run: async (request) => {
      const { username, expires_at: expiresAt, dispensaries: dispensaryIds } = request.body;
      return credentials.issue(username, actorOf(request), { expiresAt, dispensaryIds });
    },
  });

  needs('operator').read('/credentials', {
    operationId: 'listCredentials',
    summary: 'List credentials',
    schema: { response: { 200: Type.Array(CredentialOut) } },
    run: async () => (await credentials.list()).map(credentialRecord),
  });

  needs('operator').write('DELETE', '/credentials/:username', {
    operationId: 'revokeCredential',
    summary: 'Revoke a credential',
    schema: { params: UsernameParams, response: noContent('Revoked.') },
    run: (request) => credentials.revoke(request.params.username, actorOf(request)),
  });
});
