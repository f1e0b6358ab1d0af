import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { ServiceError } from '../../services/errors.js';
import type { FormTransport, RequestCredentials } from '../form.js';

/** The longest secret the other forms accept (characters); a Basic pair holds two of them. */
const LONGEST_SECRET = 256;

export const V1RequestHeaders = Type.Object({
  authorization: Type.String({
    maxLength: 16 + Math.ceil(((2 * LONGEST_SECRET + 1) * 4) / 3) * 2,
    description: 'HTTP Basic with the API credential: Basic base64(username:password), as curl -u sends it.',
  }),
  'dispensary-token': Type.String({
    maxLength: LONGEST_SECRET,
    description: 'Token obtained from the dispensary.',
  }),
});
type V1RequestHeaders = Static<typeof V1RequestHeaders>;

const malformed = () =>
  new ServiceError(
    'invalid_request',
    'The Authorization header is not HTTP Basic credentials. Send Authorization: Basic base64(username:password), as curl -u username:password does.',
    [{ field: 'authorization', message: 'is not Basic credentials' }],
  );

/** The username and password of a Basic Authorization header (RFC 7617); a malformed one is 400. */
export function basicCredentials(header: string): { username: string; password: string } {
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match) throw malformed();
  const pair = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) throw malformed();
  return { username: pair.slice(0, colon), password: pair.slice(colon + 1) };
}

/** Form v1: GET under /v1, the credential as HTTP Basic and the token in Dispensary-Token; ETags. */
export const v1Transport: FormTransport = {
  method: 'GET',
  prefix: '/v1',
  // See FormTransport.endpoints: every public endpoint, those only some forms serve included.
  endpoints: ['menu', 'menu/{item_id}', 'store', 'inventory', 'specials', 'changes', 'events'],
  tag: 'Form v1',
  openApi: {
    tagDescription:
      'GET under /v1, the credential as HTTP Basic (curl -u username:password) and the dispensary token in the Dispensary-Token header; items in the canonical shape, filtered, searched, sorted and paged.',
    securitySchemes: {
      V1Basic: {
        type: 'http',
        scheme: 'basic',
        description: 'Form v1: the API username and password issued by the operator.',
      },
      V1DispensaryToken: {
        type: 'apiKey',
        in: 'header',
        name: 'Dispensary-Token',
        description: 'Form v1: the dispensary token, obtained from each dispensary (at most 256 characters).',
      },
    },
  },
  credentialsTravel:
    'The credential travels as HTTP Basic (curl -u username:password) and the dispensary token in the Dispensary-Token header.',
  spell: (parameter) => `?${parameter}=`,
  validators: true,
  errorStatuses: [400, 401, 403, 429, 500, 503],
  requestSchema: ({ parameters }) => ({
    headers: V1RequestHeaders,
    ...(Object.keys(parameters).length > 0 ? { querystring: Type.Object(parameters) } : {}),
  }),
  credentials: (request: FastifyRequest): RequestCredentials => {
    const headers = request.headers as V1RequestHeaders;
    return { ...basicCredentials(headers.authorization), token: headers['dispensary-token'] };
  },
  queryParameters: (parameters) => Object.keys(parameters),
  parameters: (request) => request.query as Record<string, unknown>,
};
