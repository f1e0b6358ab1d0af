import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { TProperties, TSchema } from 'typebox';
import { type ErrorStatus, errorResponses, notModified } from '../../http/error-responses.js';
import type { Granted } from '../../services/access.js';
import type { MaybePromise } from '../../util/maybe-promise.js';
import { grantRequest } from '../common/grant.js';
import type { FormContext, RequestForm } from '../form.js';

/**
 * A public endpoint, written once for every form: `build` makes what the endpoint keeps per app (its
 * snapshot views), then gives its route in any form (src/forms/endpoints/index.ts registers it).
 */
export interface PublicEndpoint {
  build(context: FormContext): (form: RequestForm) => RouteOptions;
}

/** What an endpoint says about itself; the form adds where the request's parts travel. */
export interface EndpointRoute {
  /** The path without its slash, which also names the endpoint's request examples. */
  name: string;
  summary: string;
  description: string;
  /** The endpoint's own parameters beside the credentials (`since`). */
  parameters: TProperties;
  /** The schema of a successful answer. */
  response: TSchema;
  /** false: never answered 304 (answers computed per request, streams), even in a form with validators. */
  conditional?: boolean;
  /** Error statuses this endpoint answers beside the form's own (410 for an expired cursor). */
  errors?: readonly ErrorStatus[];
  /**
   * Answers a request the route's schema has validated. `grant` checks its credentials and token (and
   * counts the request in the credential's rate limit): call it after refusing bad parameters.
   */
  handle(
    request: FastifyRequest,
    reply: FastifyReply,
    grant: () => MaybePromise<Granted>,
  ): MaybePromise<unknown>;
}

/** The route of an endpoint in one form: method, places of the request's parts, answers, hooks. */
export function formRoute(form: RequestForm, context: FormContext, endpoint: EndpointRoute): RouteOptions {
  const { transport } = form;
  const grant = (request: FastifyRequest) => () =>
    grantRequest(context.access, request, transport.credentials(request));
  return {
    method: transport.method,
    url: `/${endpoint.name}`,
    schema: {
      summary: `${endpoint.summary} (${transport.tag})`,
      description: endpoint.description,
      tags: [transport.tag],
      ...transport.requestSchema({ name: endpoint.name, parameters: endpoint.parameters }),
      response: {
        200: endpoint.response,
        ...(transport.validators && endpoint.conditional !== false ? notModified() : {}),
        ...errorResponses(...[...transport.errorStatuses, ...(endpoint.errors ?? [])].sort((a, b) => a - b)),
      },
    },
    ...(transport.onRequest ? { onRequest: transport.onRequest } : {}),
    handler: (request, reply) => endpoint.handle(request, reply, grant(request)),
  };
}
