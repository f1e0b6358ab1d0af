import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { ServiceError } from '../../services/errors.js';

const Secret = (description: string) => Type.String({ maxLength: 256, description });

export const FormBRequestHeaders = Type.Object({
  store: Secret('Token obtained from the dispensary.'),
  username: Secret('API credential issued by the operator.'),
  password: Secret('API credential issued by the operator.'),
});
export type FormBRequestHeaders = Static<typeof FormBRequestHeaders>;

const CREDENTIAL_HEADERS = new Set(['store', 'username', 'password']);

/**
 * Node joins a repeated header into one comma-separated value, which would then be checked as a
 * (wrong) secret. A repeated credential header is ambiguous, so it is refused as malformed instead.
 */
export async function refuseRepeatedCredentialHeaders(request: FastifyRequest): Promise<void> {
  const seen = new Set<string>();
  const raw = request.raw.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    if (!CREDENTIAL_HEADERS.has(name)) continue;
    if (seen.has(name)) {
      throw new ServiceError(
        'invalid_request',
        `The header "${name}" was sent more than once; send it once.`,
      );
    }
    seen.add(name);
  }
}
