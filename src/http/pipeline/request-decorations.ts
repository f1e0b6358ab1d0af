import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../domain/permissions.js';
import type { CountedRequest, NotedLimit } from '../../infra/rate-limit/rate-limiter.js';
import type { RateLimitedError } from '../../services/errors.js';
import type { AdminKey } from '../../store/store.js';
import type { MaybePromise } from '../../util/maybe-promise.js';
import type { Metrics } from './metrics.js';

/**
 * Everything this server adds to Fastify's types, in one place: the request decorations (what each
 * hook notes on a request for a later one) and the documentation fields of route schemas.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** Whether this request is counted in `menu_api_http_requests_in_flight` (until answered or aborted). */
    inFlight: boolean;
    /** The buckets this request was counted in, for the RateLimit headers (src/http/pipeline/rate-limit.ts). */
    rateLimits: NotedLimit[] | null;
    /**
     * Counts a proven credential in its bucket (grantRequest calls it): answers at once with the
     * in-memory limiter, else with a promise; the 429 to answer when the bucket was empty, as a value
     * (see `Grant` in src/services/access.ts). A no-op when credentials are not limited.
     */
    countCredential(username: string): MaybePromise<RateLimitedError | undefined>;
    /** The credential a public request was granted with, for the request log; null until then. */
    credentialUsername: string | null;
    /** The admin key of a sync API request, set by the bearer check; null on every other request. */
    adminKey: AdminKey | null;
    /** Who a sync API request acts as (an admin key or an account), set by the bearer check; null elsewhere. */
    principal: Principal | null;
  }

  interface FastifyInstance {
    /** What this app's answers are counted in (src/http/pipeline/metrics.ts); null on an app that counts none. */
    metrics: Metrics | null;
  }

  /** Documentation fields of route schemas, read by the OpenAPI document. */
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: readonly string[];
  }
}

/** A request's `countCredential`: a method on the request prototype, so that no request pays for a closure. */
export type CredentialCounter = (
  this: CountedRequest,
  username: string,
) => MaybePromise<RateLimitedError | undefined>;

const countNothing: CredentialCounter = () => undefined;

/**
 * Gives the app its metrics and every request of it its decorations with their starting values. Call
 * once, first: the hooks that set them are added later, by the modules named beside each field above.
 */
export function decorateRequests(
  app: FastifyInstance,
  metrics: Metrics | null,
  countCredential: CredentialCounter = countNothing,
): void {
  app.decorate('metrics', metrics);
  app.decorateRequest('inFlight', false);
  app.decorateRequest('rateLimits', null);
  app.decorateRequest('countCredential', countCredential);
  app.decorateRequest('credentialUsername', null);
  app.decorateRequest('adminKey', null);
  app.decorateRequest('principal', null);
}
