import type { AccessService, Grant } from '../../services/access.js';
import type { AccessRequest } from '../../services/access-request.js';
import { type RateLimitedError, ServiceError } from '../../services/errors.js';
import { andThen, type MaybePromise } from '../../util/maybe-promise.js';

/** What the access check reads and notes on a request: a Fastify request, or one the read lane answers. */
export interface GrantedRequest {
  /** The client address (the proxy's client when the proxy is trusted). */
  readonly ip: string;
  credentialUsername: string | null;
  countCredential(username: string): MaybePromise<RateLimitedError | undefined>;
}

/**
 * Every public route's access check: the client address goes along (the login guard counts failed
 * logins per address), the granted credential is noted for the request log and counted in its rate
 * limit. Ready at once when everything is in memory (src/util/maybe-promise.ts). A refusal (401, 403,
 * 429) is answered as a value, as `AccessService.grant` answers it.
 */
export function grantRequest(
  access: AccessService,
  request: GrantedRequest,
  credentials: AccessRequest,
): MaybePromise<Grant> {
  return andThen(access.grant(credentials, request.ip), (grant) => {
    if (grant instanceof ServiceError) return grant;
    request.credentialUsername = grant.credential.username;
    return andThen(request.countCredential(grant.credential.username), (refusal) => refusal ?? grant);
  });
}
