import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { type Static, Type } from 'typebox';
import { ServiceError } from '../../services/errors.js';

const Secret = (description: string) => Type.String({ maxLength: 256, description });

export const FormBRequestHeaders = Type.Object({
  store: Secret('Token obtained from the dispensary.'),
  username: Secret('API credential issued by the operator.'),
  password: Secret('API credential issued by the operator.'),
});
export type FormBRequestHeaders = Static<typeof FormBRequestHeaders>;

/** One bit per credential header, to note which were seen. */
const CREDENTIAL_HEADER_BITS = new Map([
  ['store', 1],
  ['username', 2],
  ['password', 4],
]);

/**
 * Node joins a repeated header into one comma-separated value, which would then be checked as a
 * (wrong) secret. A repeated credential header is ambiguous, so it is refused as malformed instead.
 * Runs on every Form B request: a synchronous hook that allocates nothing on the way through.
 */
export function refuseRepeatedCredentialHeaders(
  request: FastifyRequest,
  _reply: FastifyReply,
  next: HookHandlerDoneFunction,
): void {
  let seen = 0;
  const raw = request.raw.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!;
    // Only names of the right length are lower-cased and compared: `store`, `username`, `password`.
    if (name.length !== 5 && name.length !== 8) continue;
    const bit = CREDENTIAL_HEADER_BITS.get(name.toLowerCase());
    if (bit === undefined) continue;
    if (seen & bit) {
      next(
        new ServiceError(
          'invalid_request',
          `The header "${name.toLowerCase()}" was sent more than once; send it once.`,
        ),
      );
      return;
    }
    seen |= bit;
  }
  if (seen === 0 && hasBody(request)) {
    // A Form A body sent with GET: say where the credentials go, rather than "header store is required".
    const path = request.url.split('?')[0];
    next(
      new ServiceError(
        'invalid_request',
        `GET ${path} (Form B) reads the credentials from the headers store, username and password, not from a body. To send them in a JSON body, use POST ${path} (Form A).`,
      ),
    );
    return;
  }
  next();
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}
