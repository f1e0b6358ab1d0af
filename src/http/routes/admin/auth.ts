import type { FastifyReply, FastifyRequest } from 'fastify';
import { keyPrincipal, type Principal, reach, refusal } from '../../../domain/permissions.js';
import type { AdminKeyVerifier } from '../../../services/admin-keys.js';
import type { ConsoleSessionService } from '../../../services/console-sessions.js';
import { RateLimitedError, ServiceError } from '../../../services/errors.js';
import type { LoginGuard } from '../../../services/login-guard/login-guard.js';

/** The console's session cookie: HttpOnly, so no script of the page can read it. */
export const SESSION_COOKIE = 'menu_console_session';
/** The header a console write carries the session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of one cookie of the request, if sent. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** This server's own origin as the browser sees it (behind a trusted proxy, the proxy's). */
export function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * A cookie-authenticated write must come from the console itself: the Origin header names this server
 * (browsers always send it on writes), and the session's CSRF token is in its header.
 */
function checkCsrf(request: FastifyRequest, sessions: ConsoleSessionService, id: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  if (request.headers.origin !== ownOrigin(request)) {
    throw new ServiceError(
      'forbidden',
      'A write with the console session must come from the console page itself (the Origin header does not match this server).',
    );
  }
  if (!sessions.csrfMatches(id, request.headers[CSRF_HEADER])) {
    throw new ServiceError(
      'forbidden',
      `A write with the console session needs the session's CSRF token in the ${CSRF_HEADER} header (GET /admin/v1/session gives it).`,
    );
  }
}

/**
 * Checks `Authorization: Bearer <admin key>`, or else the console's session cookie (with CSRF checks on
 * writes); a missing, unknown or revoked key or session gets 401. A wrong key counts as a failed login
 * of the client address: an address that failed too often gets 429 first.
 */
export function bearerCheck(
  verifier: AdminKeyVerifier,
  guard?: LoginGuard,
  sessions?: ConsoleSessionService,
) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    const sessionId = sessions && header === undefined ? cookieOf(request, SESSION_COOKIE) : undefined;
    if (sessions && sessionId !== undefined) {
      const session = await sessions.resolve(sessionId);
      if (!session) {
        throw new ServiceError(
          'invalid_credentials',
          'The console session has ended (signed out, timed out, or its admin key was revoked). Sign in again.',
        );
      }
      checkCsrf(request, sessions, sessionId);
      request.adminKey = session.adminKey ?? null;
      request.principal = session.principal;
      return;
    }
    const attempt = { address: request.ip };
    if (guard && header !== undefined) {
      const verdict = await guard.check(attempt);
      if (!verdict.allowed) {
        throw new RateLimitedError(
          `Too many failed logins from your address. Wait ${verdict.retryAfterSeconds} seconds before trying again.`,
          verdict.retryAfterSeconds,
        );
      }
    }
    const match = typeof header === 'string' ? /^Bearer ([\x21-\x7e]{1,200})$/i.exec(header) : null;
    const key = match ? await verifier.verify(match[1]!) : undefined;
    if (!key) {
      if (guard && header !== undefined) await guard.failed(attempt);
      throw new ServiceError('invalid_credentials', bearerProblem(header, Boolean(match)));
    }
    request.adminKey = key;
    request.principal = keyPrincipal(key);
  };
}

/**
 * The one authorization check of the sync API: each route declares what it needs (`config.access`,
 * set by src/http/routes/admin/route.ts), and the caller's role and dispensaries must allow it. It runs
 * after the request is validated and before the handler, an Idempotency-Key replay included.
 */
export async function accessCheck(request: FastifyRequest): Promise<void> {
  const access = request.routeOptions.config.access;
  if (!access) throw new Error(`route ${request.routeOptions.url} declares no access`);
  const params = request.params as { id?: string } | undefined;
  const dispensaryId = access.dispensaryInPath && params?.id !== undefined ? Number(params.id) : undefined;
  const refused = refusal(principalOf(request), access.permission, dispensaryId);
  if (refused) throw new ServiceError('forbidden', refused);
}

/** Sets or clears the session cookie; `Secure` when the request came over HTTPS (directly or via a trusted proxy). */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  value: string,
  maxAgeSeconds: number,
): void {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=Strict${secure}`,
  );
}

/** Why a bearer check failed: no header, a header of the wrong shape, or a key that is not (or no longer) valid. */
function bearerProblem(header: string | undefined, wellFormed: boolean): string {
  if (header === undefined)
    return 'The sync API needs an admin key: send Authorization: Bearer <admin key>. Create one with: npx menu-api admin-key create --scope all --name NAME';
  if (!wellFormed)
    return 'The Authorization header is not "Bearer <admin key>". Send the key after "Bearer " and one space.';
  return 'This admin key is unknown or has been revoked. Check that you sent the whole key, or create a new one with: npx menu-api admin-key create --scope all --name NAME (npx menu-api admin-key list shows which keys are revoked).';
}

/** What the helpers below read of a request: who the bearer check found. */
type Authorized = Pick<FastifyRequest, 'principal'>;

export function principalOf(request: Authorized): Principal {
  if (!request.principal) throw new Error('bearer check did not run');
  return request.principal;
}

/** The audit log names the key or the person, never a secret. */
export function actorOf(request: Authorized): string {
  return principalOf(request).actor;
}

/** The dispensaries a listing is limited to (undefined: every one). */
export function reachOf(request: Authorized): readonly number[] | undefined {
  return reach(principalOf(request));
}

/** Refuses, with the route's own permission, a dispensary the request names elsewhere than its path. */
export function requireDispensary(
  request: Authorized & Pick<FastifyRequest, 'routeOptions'>,
  dispensaryId: number,
): void {
  const permission = request.routeOptions.config.access?.permission ?? 'operator';
  const refused = refusal(principalOf(request), permission, dispensaryId);
  if (refused) throw new ServiceError('forbidden', refused);
}

/** The dispensary id of the path (`:id`; the route schema has checked it is a number, the access check that the caller covers it). */
export function pathId(request: { params: { id: string } }): number {
  return Number(request.params.id);
}
