import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { hasBody } from '../common/has-body.js';
import type { FormTransport, PlainRead, RequestCredentials } from '../form.js';
import { BasicCredentials } from './basic-credentials.js';
import { V1_MENU_PARAMETERS } from './parameters.js';

/** The longest secret the other forms accept (characters); a Basic pair holds two of them. */
const LONGEST_SECRET = 256;
const LONGEST_AUTHORIZATION = 16 + Math.ceil(((2 * LONGEST_SECRET + 1) * 4) / 3) * 2;

export const V1RequestHeaders = Type.Object({
  authorization: Type.String({
    maxLength: LONGEST_AUTHORIZATION,
    description: 'HTTP Basic with the API credential: Basic base64(username:password), as curl -u sends it.',
  }),
  'dispensary-token': Type.String({
    maxLength: LONGEST_SECRET,
    description: 'Token obtained from the dispensary.',
  }),
});
type V1RequestHeaders = Static<typeof V1RequestHeaders>;

/** `/v1/menu`'s query parameters as the route's schema checks them (the read lane's test). */
const menuParameters = Compile(Type.Object(V1_MENU_PARAMETERS));
const MENU_PARAMETER_NAMES = new Set(Object.keys(V1_MENU_PARAMETERS));
/** A query string every parser reads alike: no characters but these (`+` a space, `%XX` escapes). */
const PLAIN_QUERY = /^[A-Za-z0-9_.,:~%+=&-]+$/;
/** Printable ASCII: a value whose length every schema checker counts alike. */
const PLAIN_VALUE = /^[\x20-\x7e]*$/;

/**
 * The query of a `/v1/menu` request as Fastify parses it (a repeated parameter an array), when it is
 * plain: known names, plain values, each passing the route's schema; else undefined.
 */
function plainParameters(url: string): Record<string, string | string[]> | undefined {
  const parameters: Record<string, string | string[]> = {};
  const at = url.indexOf('?');
  if (at < 0) return parameters;
  const text = url.slice(at + 1);
  if (!PLAIN_QUERY.test(text)) return undefined;
  for (const pair of text.split('&')) {
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals);
    if (equals <= 0 || !MENU_PARAMETER_NAMES.has(name)) return undefined;
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(equals + 1).replaceAll('+', ' '));
    } catch {
      return undefined;
    }
    if (!PLAIN_VALUE.test(value)) return undefined;
    const earlier = parameters[name];
    parameters[name] =
      earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
  }
  return menuParameters.Check(parameters) ? parameters : undefined;
}

/** How many request lines' parameters are kept: the same few queries make most of the reads. */
const KEPT_QUERIES = 512;
/** Longer request lines (a paging's, with its cursor) are parsed each time, not kept. */
const LONGEST_KEPT_URL = 512;
/** The parameters of each request line read lately (null: not plain), the same object each time. */
const keptQueries = new Map<string, Readonly<Record<string, unknown>> | null>();

/** plainParameters of a request line, kept: parsing and checking the query is most of a kept answer's cost. */
function keptParameters(url: string): Readonly<Record<string, unknown>> | undefined {
  if (url.length > LONGEST_KEPT_URL) return plainParameters(url);
  let parameters = keptQueries.get(url);
  if (parameters === undefined) {
    parameters = plainParameters(url) ?? null;
    if (keptQueries.size >= KEPT_QUERIES) keptQueries.clear();
    keptQueries.set(url, parameters && Object.freeze(parameters));
  }
  return parameters ?? undefined;
}

/** What the lane needs of a plain `/v1/menu` read: its credentials and token, and its kept parameters. */
interface PlainV1Read {
  credentials: BasicCredentials;
  parameters: Readonly<Record<string, unknown>>;
}

/**
 * Form v1's plain menu read (the read lane, src/http/pipeline/read-lane.ts): `GET /v1/menu` with an
 * Authorization and a Dispensary-Token the route's schema accepts, no body, and a plain query. The
 * Authorization is not decoded here: the access check reads the pair only when it has no answer
 * remembered for the header's text, and a malformed one is refused there as the route refuses it
 * (BasicCredentials).
 */
const plainRead: PlainRead<PlainV1Read> = {
  takesQuery: true,
  recognise: (request, headers) => {
    const { authorization, 'dispensary-token': token } = headers;
    if (
      typeof authorization !== 'string' ||
      authorization.length > LONGEST_AUTHORIZATION ||
      typeof token !== 'string' ||
      token.length > LONGEST_SECRET ||
      hasBody(headers)
    )
      return undefined;
    const parameters = keptParameters(request.url ?? '');
    if (!parameters) return undefined;
    return { credentials: new BasicCredentials(authorization, token), parameters };
  },
  credentials: (plain) => plain.credentials,
  parameters: (plain) => plain.parameters,
};

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
  // Decoded when the access check reads the pair (BasicCredentials), as on the read lane.
  credentials: (request: FastifyRequest): RequestCredentials => {
    const headers = request.headers as V1RequestHeaders;
    return new BasicCredentials(headers.authorization, headers['dispensary-token']);
  },
  queryParameters: (parameters) => Object.keys(parameters),
  parameters: (request) => request.query as Record<string, unknown>,
  plainRead,
};
