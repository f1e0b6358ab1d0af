import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminKeyVerifier } from '../../../services/admin-keys.js';
import { scopedDispensary } from '../../../services/admin-keys.js';
import type { ConsoleSessionService } from '../../../services/console-sessions.js';
import { RateLimitedError, ServiceError } from '../../../services/errors.js';
import type { LoginGuard } from '../../../services/login-guard/login-guard.js';
import type { AdminKey } from '../../../store/store.js';

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
      request.adminKey = session.adminKey;
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
  };
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

/** What the helpers below read of a request: the admin key the bearer check found. */
type Keyed = Pick<FastifyRequest, 'adminKey'>;

export function adminKeyOf(request: Keyed): AdminKey {
  if (!request.adminKey) throw new Error('bearer check did not run');
  return request.adminKey;
}

/** The audit log names the key, never its secret. */
export function actorOf(request: Keyed): string {
  return `key:${adminKeyOf(request).name}`;
}

/** A key scoped to one dispensary may touch that one only. */
export function requireDispensaryScope(request: Keyed, dispensaryId: number): void {
  const limit = scopedDispensary(adminKeyOf(request).scope);
  if (limit !== undefined && limit !== dispensaryId) {
    throw new ServiceError('forbidden', `This admin key is limited to dispensary ${limit}.`);
  }
}

/** The dispensary id of the path (`:id`; the route schema has checked it is a number). */
export function pathId(request: { params: { id: string } }): number {
  return Number(request.params.id);
}

/** The dispensary of the path, after checking the key may touch it. */
export function dispensaryOf(request: Keyed & { params: { id: string } }): number {
  const id = pathId(request);
  requireDispensaryScope(request, id);
  return id;
}

/** Creating dispensaries and credentials needs a key with scope all. */
export function requireFullScope(request: Keyed): void {
  if (adminKeyOf(request).scope !== 'all') {
    throw new ServiceError('forbidden', 'This needs an admin key with scope all.');
  }
}

/** Every route of this plugin is the operator's: each needs a key with scope all. */
export function operatorOnly(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => requireFullScope(request));
}
