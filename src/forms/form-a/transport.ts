import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ServiceError } from '../../services/errors.js';
import {
  FORM_A_CHANGES_REQUEST_EXAMPLE,
  FORM_A_EVENTS_REQUEST_EXAMPLE,
  FORM_A_INVENTORY_REQUEST_EXAMPLE,
  FORM_A_MENU_REQUEST_EXAMPLE,
  FORM_A_STORE_REQUEST_EXAMPLE,
} from '../examples.js';
import type { FormTransport, PlainRead, RequestCredentials } from '../form.js';
import {
  announcesPlainFormABody,
  type FormACredentials,
  formACredentials,
  isAcceptedContentType,
  parseFormABody,
  parseFormAJson,
  plainFormABody,
} from './request.js';

/** The documented request body of each endpoint, by endpoint name. */
const REQUEST_EXAMPLES: Readonly<Record<string, object>> = {
  menu: FORM_A_MENU_REQUEST_EXAMPLE,
  store: FORM_A_STORE_REQUEST_EXAMPLE,
  inventory: FORM_A_INVENTORY_REQUEST_EXAMPLE,
  changes: FORM_A_CHANGES_REQUEST_EXAMPLE,
  events: FORM_A_EVENTS_REQUEST_EXAMPLE,
};

/** Hands a parser's result, or its error, to Fastify. */
function settle(done: (error: Error | null, body?: unknown) => void, parse: () => unknown): void {
  let body: unknown;
  try {
    body = parse();
  } catch (error) {
    done(error as Error, undefined);
    return;
  }
  done(null, body);
}

/**
 * Form A owns its body parsing: these parsers replace the defaults in the scope of Form A's routes and
 * reach no other route. JSON, nearly every Form A request, has its own entry: Fastify finds an exact
 * media type at once (the catch-all only after trying the others), and its body needs no content type
 * checks.
 */
function addBodyParsers(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    settle(done, () => parseFormAJson(body as string)),
  );
  scope.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const contentType = request.headers['content-type'];
    if (!isAcceptedContentType(contentType)) {
      done(
        new ServiceError(
          'unsupported_media_type',
          `Content-Type ${contentType} is not accepted here. Send application/json (or a urlencoded form).`,
        ),
        undefined,
      );
      return;
    }
    settle(done, () => parseFormABody(contentType, body as string));
  });
}

/**
 * Form A's plain menu read: a small JSON body of the credentials, the token and `active`. The body's
 * fields are also the menu's parameters (`active`).
 */
const plainRead: PlainRead<{ credentials: RequestCredentials; active: boolean }> = {
  announcesBody: announcesPlainFormABody,
  recognise: (_request, _headers, body) => (body === undefined ? undefined : plainFormABody(body)),
  credentials: (plain) => plain.credentials,
  parameters: (plain) => plain,
};

/** Form A: POST, credentials, token and parameters in one body; answers are never cached. */
export const formATransport: FormTransport = {
  method: 'POST',
  tag: 'Form A',
  // Body fields have no OpenAPI security scheme: they are required fields of each request body instead.
  openApi: {
    tagDescription: 'POST, credentials and the dispensary token in the JSON body.',
    noSchemeReason:
      '`security: []`: the credentials and the dispensary token are fields of the request body (`username`, `password`, `collective_token`), which no OpenAPI security scheme can describe. They are required all the same.',
    requestBody: {
      description:
        'The credentials, the token and the parameters as one JSON object: `application/json`, the JSON text as `text/plain`, or a urlencoded form with the same field names (`active=false` there too). The server also reads the JSON text with no Content-Type or labelled `application/x-www-form-urlencoded` (what `curl -d` sends without a Content-Type), which no schema here can describe: a form decoder reads that text as one field with no value. Send `Content-Type: application/json`. Any other content type is 415.',
      asText: ['text/plain'],
      asForm: ['application/x-www-form-urlencoded'],
    },
  },
  credentialsTravel: 'Credentials and the dispensary token travel in the JSON body.',
  spell: (parameter) => parameter,
  validators: false,
  errorStatuses: [400, 401, 403, 413, 415, 429, 500, 503],
  requestSchema: ({ name, parameters }) => {
    const example = REQUEST_EXAMPLES[name];
    return {
      body: Type.Object(
        { ...formACredentials, ...parameters },
        { additionalProperties: true, ...(example ? { examples: [example] } : {}) },
      ),
    };
  },
  credentials: (request) => {
    const body = request.body as FormACredentials;
    return { username: body.username, password: body.password, token: body.collective_token };
  },
  // Every parameter travels in the body: a query string has nothing to say.
  queryParameters: () => [],
  parameters: (request) => request.body as Record<string, unknown>,
  prepare: addBodyParsers,
  plainRead,
};
