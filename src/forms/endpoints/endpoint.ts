import type { FastifyReply, FastifyRequest, preHandlerHookHandler, RouteOptions } from 'fastify';
import type { TProperties, TSchema } from 'typebox';
import { type ErrorStatus, errorResponses, notModified } from '../../http/pipeline/error-responses.js';
import { sendServiceError } from '../../http/pipeline/errors.js';
import { grantRequest } from '../../http/pipeline/grant.js';
import type { Granted } from '../../services/access.js';
import { ServiceError } from '../../services/errors.js';
import { andThen, type MaybePromise } from '../../util/maybe-promise.js';
import type { FormContext, RequestForm } from '../form.js';

/**
 * A public endpoint, written once for every form: `build` makes what the endpoint keeps per app (its
 * snapshot views), then gives its route in any form (src/forms/endpoints/index.ts registers it).
 */
export interface PublicEndpoint {
  /** The path without its slash (`menu`): what a form's `endpoints` names. */
  name: string;
  /**
   * true: served only by a form whose transport names it in `endpoints`, never by one that leaves
   * `endpoints` out (Forms A and B serve their specifications' endpoints, and no more).
   */
  onlyWhereNamed?: boolean;
  build(context: FormContext): (form: RequestForm) => RouteOptions;
}

/** What an endpoint says about itself; the form adds where the request's parts travel. */
export interface EndpointRoute {
  /** The path without its slash (`menu/:item_id` for a path parameter), which also names its request examples. */
  name: string;
  /** The path parameters' schema, for a path that has some. */
  params?: TSchema;
  /** The stable start of each form's operationId (`readMenu`: `readMenuFormA`, `readMenuFormB`). */
  operationId: string;
  summary: string;
  description: string;
  /** The endpoint's own parameters beside the credentials (`since`). */
  parameters: TProperties;
  /** The schema of a successful answer. */
  response: TSchema;
  /** false: never answered 304 (answers computed per request, streams), even in a form with validators. */
  conditional?: boolean;
  /** true: a successful answer carries Menu-Cursor (the route's `config.menuCursor`, which the document reads). */
  menuCursor?: boolean;
  /** Error statuses this endpoint answers beside the form's own (410 for an expired cursor). */
  errors?: readonly ErrorStatus[];
  /**
   * Parameters a client may plausibly send here that the endpoint does not take (one its sibling
   * endpoint takes), each with a sentence saying why and what to do instead: refused with 400 in
   * every form, in a query string and in Form A's body alike (which ignores fields it does not know).
   */
  refusedParameters?: Readonly<Record<string, string>>;
  /**
   * Answers a request the route's schema has validated. `granted` checks its credentials and token
   * (and counts the request in the credential's rate limit), then calls `answer` with the grant, or
   * answers the refusal itself: call it after refusing bad parameters.
   */
  handle(request: FastifyRequest, reply: FastifyReply, granted: Granting): MaybePromise<unknown>;
}

/** Runs `answer` once the request is granted; a refusal (401, 403, 429) is sent instead. */
export type Granting = <T>(answer: (granted: Granted) => MaybePromise<T>) => MaybePromise<T | FastifyReply>;

/** What to say about a query parameter a client may plausibly send where it has no effect. */
const QUERY_HINTS: Readonly<Record<string, string>> = {
  active:
    'Form B lists active items only; POST /menu with "active": false in the JSON body (Form A) lists inactive items too.',
  store: 'The dispensary token travels in the header store, never in the URL.',
  username: 'The credentials travel in the headers username and password, never in the URL.',
  password: 'The credentials travel in the headers username and password, never in the URL.',
};

/**
 * Unknown query parameters are refused (400), on every endpoint and form alike, rather than ignored:
 * `GET /menu?active=false` or a misspelt `?snce=` would otherwise answer something else than asked.
 * So are the endpoint's refused parameters, wherever the form carries parameters, each with its reason.
 */
function refuseUnknownParameters(form: RequestForm, endpoint: EndpointRoute): preHandlerHookHandler {
  const known = new Set(form.transport.queryParameters(endpoint.parameters));
  // The path as a client sends it: under the form's prefix (/v1/menu), at the root for Forms A and B.
  const route = `${form.transport.method} ${form.transport.prefix ?? ''}/${endpoint.name}`;
  const refused = Object.entries(endpoint.refusedParameters ?? {});
  const carrier = form.transport.method === 'POST' ? 'field' : 'query parameter';
  return (request, _reply, done) => {
    const parameters = refused.length > 0 ? form.transport.parameters(request) : undefined;
    for (const [name, instead] of refused) {
      if (parameters?.[name] === undefined) continue;
      done(
        new ServiceError(
          'invalid_request',
          `${route} does not take ${form.transport.spell(name)}. ${instead}`,
          [{ field: name, message: `${carrier} is not taken here` }],
        ),
      );
      return;
    }
    const query = request.query as Record<string, unknown> | undefined;
    if (query) {
      for (const name in query) {
        if (known.has(name)) continue;
        const takes =
          known.size > 0
            ? `it takes ${[...known].join(', ')}`
            : form.transport.method === 'POST'
              ? 'its parameters travel in the JSON body'
              : 'it takes none';
        const hint = QUERY_HINTS[name] && form.transport.method === 'GET' ? ` ${QUERY_HINTS[name]}` : '';
        done(
          new ServiceError(
            'invalid_request',
            `${route} does not take the query parameter ${JSON.stringify(name)} (${takes}).${hint}`,
            [{ field: name, message: 'query parameter is not known here' }],
          ),
        );
        return;
      }
    }
    done();
  };
}

/** The route of an endpoint in one form: method, places of the request's parts, answers, hooks. */
export function formRoute(form: RequestForm, context: FormContext, endpoint: EndpointRoute): RouteOptions {
  const { transport } = form;
  const granting =
    (request: FastifyRequest, reply: FastifyReply): Granting =>
    (answer) =>
      andThen(grantRequest(context.access, request, transport.credentials(request)), (grant) =>
        grant instanceof ServiceError ? sendServiceError(grant, request, reply) : answer(grant),
      );
  return {
    method: transport.method,
    url: `/${endpoint.name}`,
    schema: {
      operationId: `${endpoint.operationId}${transport.tag.replaceAll(' ', '')}`,
      summary: `${endpoint.summary} (${transport.tag})`,
      description: endpoint.description,
      tags: [transport.tag],
      ...transport.requestSchema({ name: endpoint.name, parameters: endpoint.parameters }),
      ...(endpoint.params ? { params: endpoint.params } : {}),
      response: {
        200: endpoint.response,
        ...(transport.validators && endpoint.conditional !== false ? notModified() : {}),
        ...errorResponses(...[...transport.errorStatuses, ...(endpoint.errors ?? [])].sort((a, b) => a - b)),
      },
    },
    config: { menuCursor: endpoint.menuCursor === true },
    ...(transport.onRequest ? { onRequest: transport.onRequest } : {}),
    // After the schema's checks (a missing header is named first), before the credentials are checked.
    preHandler: refuseUnknownParameters(form, endpoint),
    handler: (request, reply) => {
      try {
        return endpoint.handle(request, reply, granting(request, reply));
      } catch (error) {
        // A parameter refused at once (a malformed cursor) is answered here: through Fastify's error
        // path it cost more than serving the menu.
        if (error instanceof ServiceError) return sendServiceError(error, request, reply);
        throw error;
      }
    },
  };
}
