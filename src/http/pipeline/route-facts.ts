import type { FastifyContextConfig } from 'fastify';
import type { Permission } from '../../domain/permissions.js';

/**
 * What a route declares about itself beyond its schema, in its Fastify `config`. The hooks that act
 * on these facts (the rate limits, the sync API's Idempotency-Key writer) and the OpenAPI document
 * read them from the route, so a new route is limited, replayed and documented by what it declares,
 * with no list of paths to keep in step.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: never rate limited (probes and scrapers must see the server as it is). Default: limited. */
    rateLimited?: boolean;
    /** true: its successful answers carry Menu-Cursor, the live feed cursor their content is consistent with. */
    menuCursor?: boolean;
    /** A write that takes an Idempotency-Key: a repeat with the same key gets the first answer. */
    idempotent?: IdempotentWrite;
    /**
     * false: answered while the database is unreachable (the health checks and metrics, which report on
     * it). Default: such a route gets 503 then, rather than an answer from caches that may miss a revocation.
     */
    needsDatabase?: boolean;
    /**
     * The credentials the route asks for, which the OpenAPI document declares as its security (the
     * route's own hooks check them). Left out: the request form's, by the route's tag.
     */
    credentials?: RouteCredentials;
    /**
     * A sync API route: what the caller must be allowed (src/domain/permissions.ts), and whether the
     * dispensary it acts on is the path's `:id`. Admin keys and accounts are checked by it alike.
     */
    access?: RouteAccess;
  }
}

/**
 * `admin-key`: an admin key as a bearer token, or the console's session cookie (the sync API);
 * `console-session`: the session cookie only; `{ none }`: no credentials, and why.
 */
export type RouteCredentials = 'admin-key' | 'console-session' | { none: string };

/** Who may call a sync API route. */
export interface RouteAccess {
  permission: Permission;
  /** The route acts on the dispensary of its path (`/dispensaries/:id…`): the caller must cover it. */
  dispensaryInPath: boolean;
}

/** How a write is replayed for a repeated Idempotency-Key. */
export interface IdempotentWrite {
  /** The answer's field that holds a secret, which a replay must not repeat (it is never kept). */
  secretField?: string;
}

/** Whether a request to a route with this config waits for a reachable database (unmatched ones do). */
export const needsDatabase = (config: FastifyContextConfig | undefined): boolean =>
  config?.needsDatabase !== false;

/** The facts as the OpenAPI document reads them: every one spelt out. */
export interface RouteFacts {
  rateLimited: boolean;
  menuCursor: boolean;
  idempotent: boolean;
  credentials: RouteCredentials | undefined;
}

/** A route's facts from its config (the defaults where it declares none). */
export function routeFacts(config: FastifyContextConfig = {}): RouteFacts {
  return {
    rateLimited: config.rateLimited !== false,
    menuCursor: config.menuCursor === true,
    idempotent: config.idempotent !== undefined,
    credentials: config.credentials,
  };
}
