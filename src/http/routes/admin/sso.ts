import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ConsoleSessionService } from '../../../services/console-sessions.js';
import { RateLimitedError, ServiceError } from '../../../services/errors.js';
import { FLOW_LIFETIME_MS, SsoRefusal, type SsoService } from '../../../services/sso.js';
import { errorResponses } from '../../pipeline/error-responses.js';
import { cookieOf, ownOrigin, setSessionCookie } from './auth.js';
import { SsoOut } from './sso.schemas.js';

const tags = ['Sync API: console session'];
const PATH = '/session/sso';
/** Where the browser keeps the sealed flow (state, nonce, PKCE verifier) while it is at the provider. */
const FLOW_COOKIE = 'menu_console_sso';
const NONE = {
  none: 'No security scheme (`security: []`): nobody is signed in yet; the provider’s answer and the sealed flow cookie are what count.',
};
const Redirect = (description: string) => ({
  302: Type.Null({ description: `${description} (the Location header).` }),
});
/** Where a refused sign-in lands: the console's sign-in page, which says what happened and what to do. */
const REFUSED_PAGE = '/console/?sso_problem=';
const REFUSED = `or, when refused, to the console's sign-in page with \`sso_problem\` saying why (\`${REFUSED_PAGE}not_allowed\`: see docs/accounts.md)`;

/**
 * Single sign-on to the console with OpenID Connect: whether it is configured (the sign-in page asks),
 * the way out to the provider and the way back. The way back sets the same session cookie as a
 * password sign-in, with a new session id, and sends the browser to the console.
 */
export const ssoRoutes: FastifyPluginAsync<{
  sessions: ConsoleSessionService;
  sso?: SsoService;
  /** The console's address (--public-url); the callback the provider knows is below it. */
  consoleUrl?: string;
}> = async (app, { sessions, sso, consoleUrl }) => {
  const base = (request: FastifyRequest) => (consoleUrl ?? ownOrigin(request)).replace(/\/+$/, '');
  const callbackOf = (request: FastifyRequest) => `${base(request)}/admin/v1${PATH}/callback`;
  const configured = (): SsoService => {
    if (!sso) {
      throw new ServiceError(
        'not_found',
        'Single sign-on is not configured on this server: start it with --oidc-issuer, --oidc-client-id and --oidc-client-secret.',
      );
    }
    return sso;
  };
  // Lax, not Strict: the browser comes back from the provider's site, and must bring the flow along.
  /**
   * A refusal on the way to or back from the provider is a page, not a JSON error: the browser is sent
   * to the console's sign-in page, with the problem's name only (the page has the words, so a link
   * cannot make it say anything else). The reason, which may name the email, goes to the log.
   */
  const refused = (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    if (!(error instanceof ServiceError) || error.code === 'not_found') throw error;
    const problem =
      error instanceof SsoRefusal
        ? error.problem
        : error instanceof RateLimitedError
          ? 'throttled'
          : 'failed';
    request.log.info({ sso_problem: problem, reason: error.message }, 'single sign-on refused');
    return reply.redirect(`${REFUSED_PAGE}${problem}`, 302);
  };
  const setFlowCookie = (request: FastifyRequest, reply: FastifyReply, value: string, maxAge: number) => {
    const secure = request.protocol === 'https' ? '; Secure' : '';
    reply.header(
      'set-cookie',
      `${FLOW_COOKIE}=${value}; Max-Age=${maxAge}; Path=/admin/v1${PATH}; HttpOnly; SameSite=Lax${secure}`,
    );
  };

  app.get(
    PATH,
    {
      schema: {
        operationId: 'getSingleSignOn',
        summary: 'Whether single sign-on is configured (the console’s sign-in page shows its button then)',
        tags,
        response: { 200: SsoOut, ...errorResponses(429, 500, 503) },
      },
      config: { credentials: NONE },
    },
    async () => (sso ? { configured: true, sign_in_url: `/admin/v1${PATH}/sign-in` } : { configured: false }),
  );

  app.get(
    `${PATH}/sign-in`,
    {
      schema: {
        operationId: 'startSingleSignOn',
        summary: 'Sign in with single sign-on: go to the OpenID Connect provider',
        description:
          'A browser navigation. Redirects to the provider’s authorization endpoint (code flow with PKCE, state and nonce), and keeps the sealed flow in a short-lived HttpOnly cookie. An address past the login guard’s limit, or a provider that cannot be reached, is sent to the console’s sign-in page instead, which says why.',
        tags,
        response: { ...Redirect(`To the provider, ${REFUSED}`), ...errorResponses(404, 429, 500, 503) },
      },
      config: { credentials: NONE },
    },
    async (request, reply) => {
      const service = configured();
      reply.header('cache-control', 'no-store');
      let started: Awaited<ReturnType<SsoService['start']>>;
      try {
        started = await service.start(callbackOf(request), request.ip);
      } catch (error) {
        return refused(request, reply, error);
      }
      setFlowCookie(request, reply, started.flow, Math.floor(FLOW_LIFETIME_MS / 1000));
      return reply.redirect(started.url, 302);
    },
  );

  app.get(
    `${PATH}/callback`,
    {
      schema: {
        operationId: 'finishSingleSignOn',
        summary: 'The way back from the OpenID Connect provider: sets the session cookie',
        description:
          'The provider sends the browser here with a code (or its error). With the flow cookie set by the sign-in route, the code is exchanged and the ID token checked; the identity must belong to an account (or a pending invitation) with that verified email, or to an allowed domain. Then the session cookie is set, with a new session id, and the browser is sent to /console/. A refusal (the identity not allowed, the provider’s error, a state that is not this browser’s) sends the browser to the console’s sign-in page, which says what happened and what to do, and counts as a failed login of the address in the login guard.',
        tags,
        querystring: Type.Object({}, { additionalProperties: true }),
        response: { ...Redirect(`To the console, ${REFUSED}`), ...errorResponses(404, 429, 500, 503) },
      },
      config: { credentials: NONE },
    },
    async (request, reply) => {
      const service = configured();
      reply.header('cache-control', 'no-store');
      // The flow is used once, whatever comes of it.
      setFlowCookie(request, reply, '', 0);
      let started: Awaited<ReturnType<SsoService['finish']>>;
      try {
        started = await service.finish(
          new URL(request.url, 'http://callback.invalid'),
          cookieOf(request, FLOW_COOKIE),
          callbackOf(request),
          request.ip,
        );
      } catch (error) {
        return refused(request, reply, error);
      }
      setSessionCookie(request, reply, started.id, Math.floor(sessions.lifetimeMs / 1000));
      return reply.redirect('/console/', 302);
    },
  );
};
