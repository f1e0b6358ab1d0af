import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleSessionService } from '../../../services/console-sessions.js';
import { ServiceError } from '../../../services/errors.js';
import type { AdminKey } from '../../../store/store.js';
import { errorResponses, noContent } from '../../pipeline/error-responses.js';
import { CSRF_HEADER, cookieOf, ownOrigin, SESSION_COOKIE, setSessionCookie } from './auth.js';
import { SessionOut, SignInBody } from './session.schemas.js';

const tags = ['Sync API: console session'];

/**
 * The console's sign-in: an admin key becomes a session cookie (HttpOnly, SameSite=Strict, Path=/,
 * Secure over HTTPS). With the cookie, the rest of /admin/v1 accepts requests without the
 * Authorization header; writes also need the CSRF token (X-CSRF-Token) and this server's Origin.
 */
export const sessionRoutes: FastifyPluginAsync<{ sessions: ConsoleSessionService }> = async (
  app,
  { sessions },
) => {
  const answer = (adminKey: AdminKey, csrfToken: string, expiresAt: string) => ({
    admin_key: { name: adminKey.name, scope: adminKey.scope },
    csrf_token: csrfToken,
    expires_at: expiresAt,
    idle_timeout_seconds: Math.round(sessions.idleTimeoutMs / 1000),
  });
  const refuseForeignOrigin = (request: FastifyRequest) => {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin(request)) {
      throw new ServiceError(
        'forbidden',
        'Sign in from the console page of this server (the Origin header does not match).',
      );
    }
  };
  const clearCookie = (request: FastifyRequest, reply: FastifyReply) =>
    setSessionCookie(request, reply, '', 0);

  // The sign-in's body is typed from its schema.
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/session',
    {
      schema: {
        operationId: 'signIn',
        summary: 'Sign in to the console: exchange an admin key for a session cookie',
        description:
          'Sets the HttpOnly session cookie. A wrong key counts as a failed login of your address (429 after too many).',
        tags,
        body: SignInBody,
        response: { 201: SessionOut, ...errorResponses(400, 401, 403, 429, 500, 503) },
      },
      config: {
        credentials: {
          none: 'No security scheme (`security: []`): the admin key travels in the body (`key`), and no Authorization header is read.',
        },
      },
    },
    async (request, reply) => {
      refuseForeignOrigin(request);
      const started = await sessions.signIn(request.body.key, request.ip);
      setSessionCookie(request, reply, started.id, Math.floor(sessions.lifetimeMs / 1000));
      reply.code(201);
      return answer(started.adminKey, started.csrfToken, started.expiresAt);
    },
  );

  app.get(
    '/session',
    {
      schema: {
        operationId: 'getSession',
        summary: 'The console session of the cookie, with its CSRF token',
        tags,
        response: { 200: SessionOut, ...errorResponses(401, 429, 500, 503) },
      },
      config: { credentials: 'console-session' },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const id = cookieOf(request, SESSION_COOKIE);
      const session = id === undefined ? undefined : await sessions.resolve(id);
      if (!session) {
        throw new ServiceError(
          'invalid_credentials',
          'There is no console session: sign in with an admin key.',
        );
      }
      return answer(session.adminKey, session.csrfToken, session.expiresAt);
    },
  );

  app.delete(
    '/session',
    {
      schema: {
        operationId: 'signOut',
        summary: 'Sign out: end the console session on the server',
        description: `Needs the session's CSRF token in ${CSRF_HEADER} and this server's Origin, as every write with the cookie.`,
        tags,
        response: {
          ...noContent('Signed out; the cookie is cleared.'),
          ...errorResponses(403, 429, 500, 503),
        },
      },
      config: {
        credentials: {
          none: 'No credentials needed (`security: []`): with the session cookie (ConsoleSession) it ends that session, and then needs its CSRF token; without one it only clears the cookie.',
        },
      },
    },
    async (request, reply) => {
      const id = cookieOf(request, SESSION_COOKIE);
      if (id !== undefined && id !== '') {
        if (
          request.headers.origin !== ownOrigin(request) ||
          !sessions.csrfMatches(id, request.headers[CSRF_HEADER])
        ) {
          throw new ServiceError(
            'forbidden',
            `Signing out needs the session's CSRF token in ${CSRF_HEADER}, sent from the console page.`,
          );
        }
        await sessions.signOut(id);
      }
      clearCookie(request, reply);
      return reply.code(204).send();
    },
  );
};
