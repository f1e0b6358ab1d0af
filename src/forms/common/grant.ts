import type { FastifyRequest } from 'fastify';
import type { AccessRequest, AccessService, Granted } from '../../services/access.js';
import { andThen, type MaybePromise } from '../../util/maybe-promise.js';

/**
 * Every public route's access check: the client address goes along (the login guard counts failed
 * logins per address), the granted credential is noted for the request log and counted in its rate
 * limit. Ready at once when everything is in memory (src/util/maybe-promise.ts).
 */
export function grantRequest(
  access: AccessService,
  request: FastifyRequest,
  fields: Omit<AccessRequest, 'address'>,
): MaybePromise<Granted> {
  return andThen(access.grant({ ...fields, address: request.ip }), (granted) => {
    request.credentialUsername = granted.credential.username;
    return andThen(request.countCredential(granted.credential.username), () => granted);
  });
}
