import type { FastifyRequest } from 'fastify';
import type { AdminKeyVerifier } from '../../services/admin-keys.js';
import { scopedDispensary } from '../../services/admin-keys.js';
import { RateLimitedError, ServiceError } from '../../services/errors.js';
import type { LoginGuard } from '../../services/login-guard/login-guard.js';
import type { AdminKey } from '../../store/store.js';

/**
 * Checks `Authorization: Bearer <admin key>`; a missing, unknown or revoked key gets 401. A wrong key
 * counts as a failed login of the client address: an address that failed too often gets 429 first.
 */
export function bearerCheck(verifier: AdminKeyVerifier, guard?: LoginGuard) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
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

/** Why a bearer check failed: no header, a header of the wrong shape, or a key that is not (or no longer) valid. */
function bearerProblem(header: string | undefined, wellFormed: boolean): string {
  if (header === undefined)
    return 'The sync API needs an admin key: send Authorization: Bearer <admin key>. Create one with: npx menu-api admin-key create --scope all --name NAME';
  if (!wellFormed)
    return 'The Authorization header is not "Bearer <admin key>". Send the key after "Bearer " and one space.';
  return 'This admin key is unknown or has been revoked. Check that you sent the whole key, or create a new one with: npx menu-api admin-key create --scope all --name NAME (npx menu-api admin-key list shows which keys are revoked).';
}

export function adminKeyOf(request: FastifyRequest): AdminKey {
  if (!request.adminKey) throw new Error('bearer check did not run');
  return request.adminKey;
}

/** The audit log names the key, never its secret. */
export function actorOf(request: FastifyRequest): string {
  return `key:${adminKeyOf(request).name}`;
}

/** A key scoped to one dispensary may touch that one only. */
export function requireDispensaryScope(request: FastifyRequest, dispensaryId: number): void {
  const limit = scopedDispensary(adminKeyOf(request).scope);
  if (limit !== undefined && limit !== dispensaryId) {
    throw new ServiceError('forbidden', `This admin key is limited to dispensary ${limit}.`);
  }
}

/** The dispensary id of the path (`:id`; the route schema has checked it is a number). */
export function pathId(request: FastifyRequest): number {
  return Number((request.params as { id: string }).id);
}

/** The dispensary of the path, after checking the key may touch it. */
export function dispensaryOf(request: FastifyRequest): number {
  const id = pathId(request);
  requireDispensaryScope(request, id);
  return id;
}

/** Creating dispensaries and credentials needs a key with scope all. */
export function requireFullScope(request: FastifyRequest): void {
  if (adminKeyOf(request).scope !== 'all') {
    throw new ServiceError('forbidden', 'This needs an admin key with scope all.');
  }
}
