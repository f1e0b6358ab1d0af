import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ContextConfigDefault, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../../../services/accounts.js';
import type {
  ActiveSession,
  ConsoleSessionService,
  StartedSession,
} from '../../../services/console-sessions.js';
import { ServiceError } from '../../../services/errors.js';
import type { PasskeyService } from '../../../services/passkeys.js';
import type { PasswordOutcome, SecondFactorService } from '../../../services/second-factor.js';
import type { Account } from '../../../store/store.js';
import { type ErrorStatus, errorResponses, noContent } from '../../pipeline/error-responses.js';
import { AcceptLinkBody, LinkBody, LinkOut } from './accounts.schemas.js';
import { CSRF_HEADER, cookieOf, ownOrigin, SESSION_COOKIE, setSessionCookie } from './auth.js';
import { relyingParty } from './passkeys.js';
import { PasskeySignInBody, RequestOptionsOut } from './passkeys.schemas.js';
import type { AdminRequest, RouteSchemas, Unchecked } from './route.js';
import { EnrolledSessionOut, SessionOut, SignedOutOut, SignInBody } from './session.schemas.js';
import { EnrolmentOut, PendingEnrolBody, PendingSignInOut, SecondFactorBody } from './totp.schemas.js';

const tags = ['Sync API: console session'];
const LINK_CREDENTIALS =
  'No security scheme (`security: []`): the one-time link’s token travels in the body, and it is the credential.';

/** A route of the sign-in: what it documents, the credential its body carries, and what it does. */
interface SessionStep<S extends RouteSchemas> {
  operationId: string;
  summary: string;
  description?: string;
  credential: string;
  /** Its request's parts type `run`'s request; `errors` are added to its success response. */
  schema: S;
  errors: ErrorStatus[];
  run: (request: AdminRequest<S>, reply: FastifyReply) => Promise<unknown>;
}

/**
 * The console's sign-in: an account's email and password (or, for operators, an admin key) becomes a
 * session cookie (HttpOnly, SameSite=Strict, Path=/, Secure over HTTPS) with a new id every time.
 * With the cookie, the rest of /admin/v1 accepts requests without the Authorization header; writes
 * also need the CSRF token (X-CSRF-Token) and this server's Origin. A one-time link (invitation or
 * password reset) is used here too: it sets the password and signs its owner in.
 */
export const sessionRoutes: FastifyPluginAsync<{
  sessions: ConsoleSessionService;
  accounts: AccountService;
  passkeys?: PasskeyService;
  /** One-time codes: a right password then waits for a code (or, when required, for codes set up). */
  secondFactors?: SecondFactorService;
  /** The console's address (--public-url): the relying party of passkeys. */
  consoleUrl?: string;
}> = async (app, { sessions, accounts, passkeys, secondFactors, consoleUrl }) => {
  const answer = (session: Omit<ActiveSession, 'principal'>) => ({
    ...(session.adminKey
      ? { admin_key: { name: session.adminKey.name, scope: session.adminKey.scope } }
      : {}),
    ...(session.account
      ? {
          account: {
            id: session.account.id,
            email: session.account.email,
            role: session.account.role,
            dispensary_ids: session.account.dispensaryIds,
          },
        }
      : {}),
    csrf_token: session.csrfToken,
    expires_at: session.expiresAt,
    idle_timeout_seconds: Math.round(sessions.idleTimeoutMs / 1000),
  });
  /** Sign-ins and link use come from the console page of this server, never from another site. */
  const refuseForeignOrigin = (request: FastifyRequest) => {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin(request)) {
      throw new ServiceError(
        'forbidden',
        'Sign in from the console page of this server (the Origin header does not match).',
      );
    }
  };
  /** A write with the cookie: the CSRF token of its session, sent from the console page. */
  const refuseForgedWrite = (request: FastifyRequest, id: string, what: string) => {
    if (
      request.headers.origin !== ownOrigin(request) ||
      !sessions.csrfMatches(id, request.headers[CSRF_HEADER])
    ) {
      throw new ServiceError(
        'forbidden',
        `${what} needs the session's CSRF token in ${CSRF_HEADER}, sent from the console page.`,
      );
    }
  };
  /** A new session: its cookie, and who it is (201). */
  const begin = (reply: FastifyReply, started: StartedSession) => {
    setSessionCookie(reply.request, reply, started.id, Math.floor(sessions.lifetimeMs / 1000));
    reply.code(201);
    return answer(started);
  };
  /** A right password: a session, or (202) the token of a sign-in waiting for its second factor. */
  const afterPassword = async (reply: FastifyReply, account: Account) => {
    const outcome: PasswordOutcome = secondFactors
      ? await secondFactors.afterPassword(account)
      : { session: await sessions.startForAccount(account) };
    if (outcome.session) return begin(reply, outcome.session);
    reply.code(202);
    reply.header('cache-control', 'no-store');
    return {
      second_factor: outcome.pending.next === 'code' ? ('totp' as const) : ('enroll' as const),
      pending_token: outcome.pending.token,
      expires_at: outcome.pending.expiresAt,
    };
  };
  const clearCookie = (request: FastifyRequest, reply: FastifyReply) =>
    setSessionCookie(request, reply, '', 0);
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  /**
   * A step on the way to a session (signing in, a one-time link): POSTed from this server's console page
   * (a foreign Origin is refused before anything else is read), its credential in the body, never in an
   * Authorization header; `credential` says which for the OpenAPI document.
   */
  function beforeSession<S extends RouteSchemas>(url: string, step: SessionStep<S>): void {
    const { operationId, summary, description, schema, errors, credential, run } = step;
    typed.route<Unchecked, ContextConfigDefault, S>({
      method: 'POST',
      url,
      schema: {
        operationId,
        summary,
        ...(description === undefined ? {} : { description }),
        tags,
        ...schema,
        response: { ...schema.response, ...errorResponses(...errors) },
      },
      config: { credentials: { none: credential } },
      handler: async (request, reply) => {
        refuseForeignOrigin(request);
        return run(request, reply);
      },
    });
  }

  beforeSession('/session', {
    operationId: 'signIn',
    summary: 'Sign in to the console: email and password (or an admin key) for a session cookie',
    description:
      'Sets the HttpOnly session cookie, with a new session id; or, for an account with one-time codes (or one that must set them up), answers 202 with a token for the second step and no session yet. A wrong password or key counts as a failed login of the account and of your address (429 after too many); an unknown email gets the same answer, after the same time, as a wrong password.',
    credential:
      'No security scheme (`security: []`): the email and password (or the admin key, `key`) travel in the body, and no Authorization header is read.',
    schema: { body: SignInBody, response: { 201: SessionOut, 202: PendingSignInOut } },
    errors: [400, 401, 403, 429, 500, 503],
    run: async (request, reply) => {
      const { key, email, password } = request.body;
      if (key === undefined && (email === undefined || password === undefined)) {
        throw new ServiceError('invalid_request', 'Send email and password (or, for operators, key).');
      }
      if (key !== undefined && (email !== undefined || password !== undefined)) {
        throw new ServiceError('invalid_request', 'Send either email and password, or key, not both.');
      }
      if (key !== undefined) return begin(reply, await sessions.signIn(key, request.ip));
      return afterPassword(reply, await sessions.checkPassword(email, password, request.ip));
    },
  });

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
        throw new ServiceError('invalid_credentials', 'There is no console session: sign in.');
      }
      return answer(session);
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
        refuseForgedWrite(request, id, 'Signing out');
        await sessions.signOut(id);
      }
      clearCookie(request, reply);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/sessions',
    {
      schema: {
        operationId: 'signOutEverywhere',
        summary: 'Sign out everywhere: end every session of the signed-in account',
        description: `Every browser the account signed in on is signed out. Needs the CSRF token in ${CSRF_HEADER}, as every write with the cookie.`,
        tags,
        response: { 200: SignedOutOut, ...errorResponses(400, 401, 403, 429, 500, 503) },
      },
      config: { credentials: 'console-session' },
    },
    async (request, reply) => {
      const id = cookieOf(request, SESSION_COOKIE);
      if (id === undefined || id === '' || !(await sessions.resolve(id))) {
        throw new ServiceError('invalid_credentials', 'There is no console session: sign in.');
      }
      refuseForgedWrite(request, id, 'Signing out everywhere');
      const ended = await sessions.signOutEverywhere(id);
      clearCookie(request, reply);
      return { ended_sessions: ended };
    },
  );

  beforeSession('/account-link', {
    operationId: 'describeAccountLink',
    summary: 'Whose one-time link this is, and what for (the console’s link page asks)',
    description:
      'The token travels in the body, never in a URL. Using the link is POST /account-link/accept.',
    credential: LINK_CREDENTIALS,
    schema: { body: LinkBody, response: { 200: LinkOut } },
    errors: [400, 403, 404, 429, 500, 503],
    run: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return accounts.describeLink(request.body.token);
    },
  });

  beforeSession('/account-link/accept', {
    operationId: 'acceptAccountLink',
    summary: 'Use a one-time link: choose the password, and be signed in',
    description:
      'The link works once. The account’s other sessions end; a new session cookie is set for this browser.',
    credential: LINK_CREDENTIALS,
    schema: { body: AcceptLinkBody, response: { 201: SessionOut, 202: PendingSignInOut } },
    errors: [400, 401, 403, 404, 429, 500, 503],
    run: async (request, reply) => {
      const { token, password } = request.body;
      const account = await accounts.redeemLink(token, password);
      return afterPassword(reply, await sessions.checkPassword(account.email, password, request.ip));
    },
  });

  if (secondFactors) secondFactorRoutes(secondFactors);
  if (!passkeys) return;

  beforeSession('/session/passkey/options', {
    operationId: 'passkeySignInOptions',
    summary: 'Start signing in with a passkey: the options for navigator.credentials.get',
    description:
      'The challenge works once, for 5 minutes; any passkey registered on this console may answer it.',
    credential: 'No security scheme (`security: []`): nobody is signed in yet.',
    schema: { response: { 200: RequestOptionsOut } },
    errors: [403, 429, 500, 503],
    run: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { ...(await passkeys.signInOptions(relyingParty(request, consoleUrl))) };
    },
  });

  beforeSession('/session/passkey', {
    operationId: 'signInWithPasskey',
    summary: 'Sign in to the console with a passkey alone',
    description:
      'The browser’s answer to the sign-in options: verified against the stored public key, it sets the session cookie with a new session id. A failure counts as a failed login of your address (429 after too many).',
    credential:
      'No security scheme (`security: []`): the passkey’s signature over a one-time challenge, in the body, is the credential.',
    schema: { body: PasskeySignInBody, response: { 201: SessionOut } },
    errors: [400, 401, 403, 429, 500, 503],
    run: async (request, reply) => {
      return begin(
        reply,
        await passkeys.signIn(request.body.response, relyingParty(request, consoleUrl), request.ip),
      );
    },
  });

  function secondFactorRoutes(factors: SecondFactorService) {
    const pending =
      'No security scheme (`security: []`): the sign-in’s pending token (after a right password), in the body, is the credential.';
    beforeSession('/session/second-factor', {
      operationId: 'signInSecondFactor',
      summary: 'Finish signing in: the code from the authenticator app (or a recovery code)',
      description:
        'Each code works once; a wrong one counts as a failed login of the account and of your address (429 after too many).',
      credential: pending,
      schema: { body: SecondFactorBody, response: { 201: SessionOut } },
      errors: [400, 401, 403, 429, 500, 503],
      run: async (request, reply) => {
        const { pending_token: token, code } = request.body;
        return begin(reply, await factors.verify(token, code, request.ip));
      },
    });

    beforeSession('/session/second-factor/enroll', {
      operationId: 'signInEnrolTotp',
      summary: 'Set up one-time codes before the first session (when a second factor is required)',
      description:
        'The secret is shown once. Confirm with a first code: POST /session/second-factor/enroll/confirm.',
      credential: pending,
      schema: { body: PendingEnrolBody, response: { 200: EnrolmentOut } },
      errors: [400, 401, 403, 409, 429, 500, 503],
      run: async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const { secret, uri } = await factors.enrolPending(request.body.pending_token);
        return { secret, otpauth_uri: uri };
      },
    });

    beforeSession('/session/second-factor/enroll/confirm', {
      operationId: 'signInConfirmTotp',
      summary: 'Turn one-time codes on with a first code, and be signed in (recovery codes shown once)',
      credential: pending,
      schema: { body: SecondFactorBody, response: { 201: EnrolledSessionOut } },
      errors: [400, 401, 403, 409, 429, 500, 503],
      run: async (request, reply) => {
        const { pending_token: token, code } = request.body;
        const { session, recoveryCodes } = await factors.confirmPending(token, code, request.ip);
        return { ...begin(reply, session), recovery_codes: recoveryCodes };
      },
    });
  }
};
