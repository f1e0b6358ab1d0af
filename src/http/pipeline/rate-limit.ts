import type { FastifyInstance, FastifyRequest } from 'fastify';
import { addressKey } from '../../infra/address.js';
import {
  type BucketPolicy,
  type CountedRequest,
  type NotedLimit,
  type RateDecision,
  type RateLimiter,
  windowSeconds,
} from '../../infra/rate-limit/rate-limiter.js';
import { RateLimitedError, withoutStack } from '../../services/errors.js';
import { andThen } from '../../util/maybe-promise.js';
import type { CredentialCounter } from './request-decorations.js';

export interface RateLimitOptions {
  limiter: RateLimiter;
  /** Every request from one client address (IPv6: one /64), checked first, in onRequest. */
  address?: BucketPolicy;
  /** Every public request of one credential, once its password is proven. */
  credential?: BucketPolicy;
  /** Every sync API request of one admin key, once the key has been checked. */
  adminKey?: BucketPolicy;
}

const WHO: Record<string, string> = {
  address: 'from your address',
  credential: 'for this credential',
  'admin-key': 'for this admin key',
};

/** Notes the decision on the request; the 429 to answer with when the bucket was empty. */
export function note(
  request: CountedRequest,
  policy: BucketPolicy,
  decision: RateDecision,
): RateLimitedError | undefined {
  request.rateLimits ??= [];
  request.rateLimits.push({ policy, decision });
  if (decision.allowed) return undefined;
  return refusal(policy, decision.retryAfterSeconds);
}

/** A policy's item of the RateLimit-Policy header: the same on every answer, so made once per policy. */
const policyFields = new WeakMap<BucketPolicy, string>();

function policyField(policy: BucketPolicy): string {
  let field = policyFields.get(policy);
  if (field === undefined) {
    field = `"${policy.name}";q=${policy.burst};w=${windowSeconds(policy)}`;
    policyFields.set(policy, field);
  }
  return field;
}

/**
 * The 429s answered, one per policy and wait: a refusal must cost no more than an answer, so each is
 * made once, without a stack trace, and frozen (its code, message and wait never vary), as the access
 * check's INVALID_TOKEN is. Kept by the policy itself, then by the wait: no key is built per refusal.
 */
const refusals = new WeakMap<BucketPolicy, Map<number, RateLimitedError>>();

function refusal(policy: BucketPolicy, retryAfterSeconds: number): RateLimitedError {
  let byWait = refusals.get(policy);
  if (byWait === undefined) {
    byWait = new Map();
    refusals.set(policy, byWait);
  }
  let refused = byWait.get(retryAfterSeconds);
  if (refused === undefined) {
    const message = `Too many requests ${WHO[policy.name] ?? ''}: at most ${policy.ratePerSecond} per second, in bursts of up to ${policy.burst}. Retry after ${retryAfterSeconds} seconds.`;
    refused = Object.freeze(withoutStack(() => new RateLimitedError(message, retryAfterSeconds)));
    if (byWait.size >= 256) byWait.clear();
    byWait.set(retryAfterSeconds, refused);
  }
  return refused;
}

/**
 * The RateLimit-Policy and RateLimit fields of the buckets a request was counted in; none when it was
 * counted in none. A credential's state is told only to whoever proved to hold it (or was refused by
 * it): anyone can send a username, and must not learn how busy its owner is (the draft's security
 * advice), so grantRequest counts a credential only once its password is proven.
 */
export function rateLimitFields(shown: NotedLimit[] | null): { policy: string; state: string } | undefined {
  if (!shown) return undefined;
  let policy = '';
  let state = '';
  for (const { policy: counted, decision } of shown) {
    const separator = policy ? ', ' : '';
    policy += separator + policyField(counted);
    state += `${separator}"${counted.name}";r=${decision.remaining};t=${decision.resetSeconds}`;
  }
  return { policy, state };
}

/**
 * Token buckets per client address (every request) and per credential or admin key, answered with
 * the RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers on every limited
 * response (rateLimitFields, set by src/http/pipeline/answer-headers.ts), and 429 with Retry-After when a
 * bucket is empty. The hooks are synchronous callbacks
 * and allocate little: they run on every request (bench/PROFILE.md).
 */
export function addRateLimits(app: FastifyInstance, options: RateLimitOptions): void {
  const { limiter, address, adminKey } = options;

  /** Counts one request; `done` hears the refusal, if any, at once or when Redis answers. */
  function count(
    request: FastifyRequest,
    policy: BucketPolicy,
    key: string,
    done: (error?: RateLimitedError) => void,
  ): void {
    const decision = limiter.take(policy, key);
    if (decision instanceof Promise) decision.then((taken) => done(note(request, policy, taken)), done);
    else done(note(request, policy, decision));
  }

  // A route declares itself exempt (`config.rateLimited: false`, src/http/pipeline/route-facts.ts).
  const exempt = (request: FastifyRequest) => request.routeOptions.config?.rateLimited === false;

  if (address) {
    app.addHook('onRequest', (request, _reply, next) => {
      if (exempt(request)) return next();
      count(request, address, addressKey(request.ip), next);
    });
  }
  if (adminKey) {
    app.addHook('preHandler', (request, _reply, next) => {
      // Set by the sync API's bearer check; absent on every other route.
      const key = request.adminKey;
      if (!key || exempt(request)) return next();
      count(request, adminKey, String(key.id), next);
    });
  }
}

/**
 * The request method that counts a proven credential (grantRequest calls it; request-decorations.ts
 * puts it on every request): a stranger who knows a username cannot spend its owner's requests.
 * Wrong passwords meet the address bucket and the login guard instead, both before any scrypt work.
 */
export function credentialCounter(options: RateLimitOptions | undefined): CredentialCounter | undefined {
  const credential = options?.credential;
  if (!options || !credential) return undefined;
  const { limiter } = options;
  return function (this: CountedRequest, username: string) {
    return andThen(limiter.take(credential, username), (decision) => note(this, credential, decision));
  };
}
