import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { type Static, Type } from 'typebox';
import type { LaneHeaders } from '../../http/pipeline/lane-headers.js';
import { ServiceError } from '../../services/errors.js';
import { hasBody } from '../common/has-body.js';
import type { RequestCredentials } from '../form.js';

/** The longest secret the route schema accepts (its maxLength, in characters). */
const LONGEST_SECRET = 256;

const Secret = (description: string) => Type.String({ maxLength: LONGEST_SECRET, description });

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
 * Which credential headers a request sent, one bit each (CREDENTIAL_HEADER_BITS), or the name of one
 * sent more than once. Allocates nothing on the way through: it runs on every Form B request Fastify
 * answers (the read lane leaves a repeated header to Fastify: src/http/pipeline/lane-headers.ts).
 */
function credentialHeadersSent(rawHeaders: readonly string[]): number | string {
  let seen = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    // Only names of the right length are lower-cased and compared: `store`, `username`, `password`.
    if (name.length !== 5 && name.length !== 8) continue;
    const bit = CREDENTIAL_HEADER_BITS.get(name.toLowerCase());
    if (bit === undefined) continue;
    if (seen & bit) return name.toLowerCase();
    seen |= bit;
  }
  return seen;
}

/**
 * Node joins a repeated header into one comma-separated value, which would then be checked as a
 * (wrong) secret. A repeated credential header is ambiguous, so it is refused as malformed instead.
 * Runs on every Form B request: a synchronous hook.
 */
export function refuseRepeatedCredentialHeaders(
  request: FastifyRequest,
  _reply: FastifyReply,
  next: HookHandlerDoneFunction,
): void {
  const seen = credentialHeadersSent(request.raw.rawHeaders);
  if (typeof seen === 'string') {
    next(new ServiceError('invalid_request', `The header "${seen}" was sent more than once; send it once.`));
    return;
  }
  if (seen === 0 && hasBody(request.headers)) {
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

/**
 * The credentials of a request the route's checks would certainly pass (the read lane's test, see
 * src/http/pipeline/read-lane.ts): the three headers (each sent once, as LaneHeaders are), none longer
 * than LONGEST_SECRET, and no body. Anything else is undefined, and left to the route, whose checks say
 * what is wrong.
 */
export function plainFormBCredentials(headers: LaneHeaders): RequestCredentials | undefined {
  const { store, username, password } = headers;
  // A string's length counts UTF-16 units, never fewer than the characters the schema counts.
  if (
    typeof store !== 'string' ||
    store.length > LONGEST_SECRET ||
    typeof username !== 'string' ||
    username.length > LONGEST_SECRET ||
    typeof password !== 'string' ||
    password.length > LONGEST_SECRET ||
    hasBody(headers)
  ) {
    return undefined;
  }
  return { username, password, token: store };
}
