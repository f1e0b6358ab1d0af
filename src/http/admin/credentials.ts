import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, noContent } from '../error-responses.js';
import { actorOf, requireFullScope } from './auth.js';
import type { AdminContext } from './context.js';
import { CredentialOut, IssueCredentialBody, IssuedCredentialOut, UsernameParams } from './schemas.js';

const tags = ['Sync API: credentials'];

type IssueBody = { username: string; expires_at?: string | null; dispensaries?: number[] | null };

/** API credentials are the operator's: every route here needs a key with scope all. */
export const credentialRoutes: FastifyPluginAsync<AdminContext> = async (app, { services, write }) => {
  const { credentials } = services;
  app.addHook('preHandler', async (request) => requireFullScope(request));
  const issueFrom = (body: IssueBody, actor: string) =>
    credentials.issue(body.username, actor, { expiresAt: body.expires_at, dispensaryIds: body.dispensaries });

  app.post(
    '/credentials',
    {
      schema: {
        summary: 'Issue a credential (the password is shown once)',
        tags,
        body: IssueCredentialBody,
        response: {
          201: IssuedCredentialOut,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(
        request,
        reply,
        async () => ({
          status: 201,
          body: await issueFrom(request.body as IssueBody, actorOf(request)),
        }),
        'password',
      ),
  );

  app.get(
    '/credentials',
    {
      schema: {
        summary: 'List credentials',
        tags,
        response: { 200: Type.Array(CredentialOut), ...errorResponses(401, 403, 429, 500, 503) },
      },
    },
    async () =>
      (await credentials.list()).map((c) => ({
        username: c.username,
        created_at: c.createdAt,
        revoked_at: c.revokedAt,
        expires_at: c.expiresAt,
        last_used_at: c.lastUsedAt,
        dispensaries: c.dispensaryIds,
      })),
  );

  app.delete(
    '/credentials/:username',
    {
      schema: {
        summary: 'Revoke a credential',
        tags,
        params: UsernameParams,
        response: {
          ...noContent('Revoked.'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503),
        },
      },
    },
    (request, reply) =>
      write(request, reply, async () => {
        await credentials.revoke((request.params as { username: string }).username, actorOf(request));
        return { status: 204, body: null };
      }),
  );
};
