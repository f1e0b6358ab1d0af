import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { TSchema } from 'typebox';
import type { Permission } from '../../../domain/permissions.js';
import type { Services } from '../../../services/index.js';
import { type ErrorStatus, errorResponses } from '../../pipeline/error-responses.js';
import type { RouteAccess } from '../../pipeline/route-facts.js';
import type { AdminContext } from './context.js';

/**
 * A sync API route's own schema: what its request carries (path parameters, query string, body, each
 * a TypeBox schema) and its one success response (`{ 200: Thing }`, `noContent('Deleted.')`), which
 * gives the answer's status. The errors of its kind are added to it.
 */
export interface RouteSchemas {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  response: Record<number, unknown>;
}

/**
 * What the compiler checks of a handler's answer: nothing (`unknown`). The response schemas check it
 * when it is serialized; a route's request types are generic here, and Fastify's reply type would
 * otherwise stay unresolved.
 */
export interface Unchecked extends RouteGenericInterface {
  Reply: { 200: unknown };
}

/** A request as a handler gets it: params, query and body typed from the route's schemas by the type provider. */
export type AdminRequest<S extends RouteSchemas> = FastifyRequest<
  Unchecked,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  TypeBoxTypeProvider
>;

/**
 * What one route of the sync API says about itself besides its permission (which the route is declared
 * under: `needs('menu').write(…)`): its schema documents it.
 */
interface AdminRoute<S extends RouteSchemas> {
  /** Unique and stable: code generators name their methods after it. */
  operationId: string;
  summary: string;
  description?: string;
  /** Its request's parts type `run`'s request. */
  schema: S;
}

/** The route's access fact: its permission, and whether `/dispensaries/:id` names the dispensary. */
const accessOf = (url: string, permission: Permission): RouteAccess => ({
  permission,
  dispensaryInPath: url.startsWith('/dispensaries/:id'),
});

/** A read: its answer is what `run` gives (or sends itself through `reply`). */
export interface ReadRoute<S extends RouteSchemas> extends AdminRoute<S> {
  /** The media types of an answer that is not JSON only. */
  produces?: string[];
  run: (request: AdminRequest<S>, reply: FastifyReply) => unknown;
}

/** A write: it takes an Idempotency-Key, and `run` does it and gives the answer's body (nothing for a 204). */
export interface WriteRoute<S extends RouteSchemas> extends AdminRoute<S> {
  /** The field of the answer that holds a secret, which an Idempotency-Key replay must not repeat. */
  secretField?: string;
  run: (request: AdminRequest<S>) => Promise<204 extends keyof S['response'] ? void : unknown>;
}

/** The errors every sync API answer may be: the bearer check, scope, rate limits, the server. */
const EVERY_ROUTE: readonly ErrorStatus[] = [401, 403, 429, 500, 503];
const MALFORMED: readonly ErrorStatus[] = [400];
const NOT_FOUND: readonly ErrorStatus[] = [404];
/** A read's: 400 for a malformed path or query, 404 for a path naming nothing (numeric keys sort themselves). */
const readErrors = ({ params, querystring }: RouteSchemas): ErrorStatus[] => [
  ...(params || querystring ? MALFORMED : []),
  ...EVERY_ROUTE,
  ...(params ? NOT_FOUND : []),
];
/** A write's: any refusal of its body or of the state it would change. */
const WRITE_ERRORS: readonly ErrorStatus[] = [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503];

/**
 * The routes of one resource of the sync API, each declared under the permission it needs
 * (`needs('webhooks').read(url, route)`; src/domain/permissions.ts, the dispensary being the path's
 * `:id` when it has one there): every read and every write answers the errors of its kind and declares
 * the credentials the sync API's bearer check asks for (an admin key, or the console's session cookie:
 * src/http/routes/admin/index.ts registers these routes behind it), every write goes through the
 * Idempotency-Key check (`write`, declared in its config), and each route says only what is its own.
 * Handlers get their request typed from the route's schemas.
 */
export function adminRoutes(app: FastifyInstance, write: AdminContext['write'], tags: string[]) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const schemaOf = <S extends RouteSchemas>(route: AdminRoute<S>, errors: readonly ErrorStatus[]) => ({
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    tags,
    ...route.schema,
    response: { ...route.schema.response, ...errorResponses(...errors) },
  });
  return (permission: Permission) => ({
    read<S extends RouteSchemas>(url: string, route: ReadRoute<S>) {
      typed.route<Unchecked, ContextConfigDefault, S>({
        method: 'GET',
        url,
        schema: {
          ...schemaOf(route, readErrors(route.schema)),
          ...(route.produces === undefined ? {} : { produces: route.produces }),
        },
        config: { credentials: 'admin-key', access: accessOf(url, permission) },
        handler: (request, reply) => route.run(request, reply),
      });
    },
    write<S extends RouteSchemas>(
      method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: string,
      route: WriteRoute<S>,
    ) {
      const status = Number(Object.keys(route.schema.response)[0]);
      const { secretField } = route;
      typed.route<Unchecked, ContextConfigDefault, S>({
        method,
        url,
        schema: schemaOf(route, WRITE_ERRORS),
        // The writer and the OpenAPI document read this: the route takes an Idempotency-Key.
        config: {
          credentials: 'admin-key',
          idempotent: secretField === undefined ? {} : { secretField },
          access: accessOf(url, permission),
        },
        handler: (request, reply) =>
          write(request, reply, async () => ({ status, body: (await route.run(request)) ?? null })),
      });
    },
  });
}

/** Declares a route under the permission it needs: `needs('operator').write('DELETE', url, route)`. */
export type Needs = ReturnType<typeof adminRoutes>;

/**
 * A route file of the sync API as a plugin: `declare` gets the routes of `tags` to declare under
 * their permissions, the services, the whole context the file is registered with, and the app (for a
 * route that reads bodies its own way).
 */
export function adminPlugin<O extends AdminContext = AdminContext>(
  tags: string[],
  declare: (needs: Needs, services: Services, context: O, app: FastifyInstance) => void | Promise<void>,
): FastifyPluginAsync<O> {
  return async (app, context) =>
    declare(adminRoutes(app, context.write, tags), context.services, context, app);
}
