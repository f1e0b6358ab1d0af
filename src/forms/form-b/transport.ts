import { Type } from 'typebox';
import type { FormTransport, PlainRead, RequestCredentials } from '../form.js';
import { FormBRequestHeaders, plainFormBCredentials, refuseRepeatedCredentialHeaders } from './request.js';

/** Form B's menu takes no parameters. */
const NO_PARAMETERS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Form B's plain menu read: the three credential headers once each, and no body. */
const plainRead: PlainRead<RequestCredentials> = {
  recognise: (_request, headers) => plainFormBCredentials(headers),
  credentials: (credentials) => credentials,
  parameters: () => NO_PARAMETERS,
};

/** Form B: GET, credentials and token in headers, parameters in the query; answers carry ETags. */
export const formBTransport: FormTransport = {
  method: 'GET',
  tag: 'Form B',
  openApi: {
    tagDescription: 'GET, credentials and the dispensary token in headers.',
    securitySchemes: {
      FormBStore: {
        type: 'apiKey',
        in: 'header',
        name: 'store',
        description: 'Form B: the dispensary token, obtained from each dispensary (at most 256 characters).',
      },
      FormBUsername: {
        type: 'apiKey',
        in: 'header',
        name: 'username',
        description: 'Form B: the API username issued by the operator (at most 256 characters).',
      },
      FormBPassword: {
        type: 'apiKey',
        in: 'header',
        name: 'password',
        description: 'Form B: the API password issued by the operator (at most 256 characters).',
      },
    },
  },
  credentialsTravel: 'Credentials and the dispensary token travel in request headers.',
  spell: (parameter) => `?${parameter}=`,
  validators: true,
  errorStatuses: [400, 401, 403, 429, 500, 503],
  requestSchema: ({ parameters }) => ({
    headers: FormBRequestHeaders,
    ...(Object.keys(parameters).length > 0 ? { querystring: Type.Object(parameters) } : {}),
  }),
  // The credential headers, validated by the route's schema before any handler runs.
  credentials: (request) => {
    const { username, password, store } = request.headers as FormBRequestHeaders;
    return { username, password, token: store };
  },
  queryParameters: (parameters) => Object.keys(parameters),
  parameters: (request) => request.query as Record<string, unknown>,
  onRequest: refuseRepeatedCredentialHeaders,
  plainRead,
};
