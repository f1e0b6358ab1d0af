import type { FastifyRequest } from 'fastify';
import type {} from '../../http/rate-limit.js';
import type { AccessRequest, AccessService, Granted } from '../../services/access.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The credential a public request was granted with, for the request log; null until then. */
    credentialUsername: string | null;
  }
}

/**
 * Every public route's access check: the client address goes along (the login guard counts failed
 * logins per address), and the granted credential is noted for the request log.
 */
export async function grantRequest(
  access: AccessService,
  request: FastifyRequest,
  fields: Omit<AccessRequest, 'address'>,
): Promise<Granted> {
  const granted = await access.grant({ ...fields, address: request.ip });
  request.credentialUsername = granted.credential.username;
  await request.countCredential?.(granted.credential.username);
  return granted;
}
