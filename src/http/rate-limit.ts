import type { FastifyInstance, FastifyRequest } from 'fastify';
import { addressKey } from '../infra/address.js';
import {
  type BucketPolicy,
  type RateDecision,
  type RateLimiter,
  windowSeconds,
} from '../infra/rate-limit/rate-limiter.js';
import { RateLimitedError } from '../services/errors.js';

export interface RateLimitOptions {
  limiter: RateLimiter;
  /** Every request from one client address (IPv6: one /64), checked first, in onRequest. */
  address?: BucketPolicy;
  /** Every public request of one credential, once its password is proven. */
  credential?: BucketPolicy;
  /** Every sync API request of one admin key, once the key has been checked. */
  adminKey?: BucketPolicy;
}

/** Routes never limited: probes and scrapers must see the server as it is. */
const EXEMPT_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

interface Applied {
  policy: BucketPolicy;
  decision: RateDecision;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The buckets this request was counted in, for the RateLimit headers. */
    rateLimits: Applied[] | null;
    /** Counts a proven credential in its bucket; null when credentials are not limited. */
    countCredential: ((username: string) => Promise<void>) | null;
  }
}

const WHO: Record<string, string> = {
  address: 'from your address',
  credential: 'for this credential',
  'admin-key': 'for this admin key',
};

/**
 * Token buckets per client address (every request) and per credential or admin key, answered with
 * the RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers on every limited
 * response, and 429 with Retry-After when a bucket is empty.
 */
export function addRateLimits(app: FastifyInstance, options: RateLimitOptions): void {
  app.decorateRequest('rateLimits', null);
  const { limiter, address, credential, adminKey } = options;

  async function count(request: FastifyRequest, policy: BucketPolicy, key: string) {
    const decision = await limiter.take(policy, key);
    request.rateLimits ??= [];
    request.rateLimits.push({ policy, decision });
    if (!decision.allowed) {
      throw new RateLimitedError(
        `Too many requests ${WHO[policy.name] ?? ''}: at most ${policy.ratePerSecond} per second, in bursts of up to ${policy.burst}. Retry after ${decision.retryAfterSeconds} seconds.`,
        decision.retryAfterSeconds,
      );
    }
  }

  app.addHook('onSend', async (request, reply, payload) => {
    // A credential's state is told only to whoever proved to hold it (or was refused by it): anyone
    // can send a username, and must not learn how busy its owner is (the draft's security advice).
    const shown = request.rateLimits ?? [];
    if (shown.length === 0) return payload;
    reply.header(
      'ratelimit-policy',
      shown.map(({ policy }) => `"${policy.name}";q=${policy.burst};w=${windowSeconds(policy)}`).join(', '),
    );
    reply.header(
      'ratelimit',
      shown
        .map(({ policy, decision }) => `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`)
        .join(', '),
    );
    return payload;
  });

  const exempt = (request: FastifyRequest) => {
    const route = request.routeOptions.url;
    return route !== undefined && EXEMPT_ROUTES.has(route);
  };

  if (address) {
    app.addHook('onRequest', async (request) => {
      if (!exempt(request)) await count(request, address, addressKey(request.ip));
    });
  }
  if (adminKey) {
    app.addHook('preHandler', async (request) => {
      // Set by the sync API's bearer check; absent on every other route.
      const key = request.adminKey;
      if (key && !exempt(request)) await count(request, adminKey, String(key.id));
    });
  }
  if (credential) {
    // Counted once the credential is proven (grantRequest calls this): a stranger who knows a
    // username cannot spend its owner's requests. Wrong passwords meet the address bucket and the
    // login guard instead, both before any scrypt work.
    app.decorateRequest('countCredential', null);
    app.addHook('onRequest', async (request) => {
      request.countCredential = (username) => count(request, credential, username);
    });
  }
}
