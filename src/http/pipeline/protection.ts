import type { IncomingMessage, Server } from 'node:http';
import cors from '@fastify/cors';
import proxyAddr from '@fastify/proxy-addr';
import { type FastifyHttpOptions, type FastifyInstance, LogController } from 'fastify';
import type { HttpLimits, RateBucket, ServerConfig, TrustProxy } from '../../config.js';
import { createRateLimiter } from '../../infra/rate-limit/index.js';
import type { BucketPolicy } from '../../infra/rate-limit/rate-limiter.js';
import { SharedRedis, type SharedStateLog } from '../../infra/redis.js';
import { createLoginGuard, type LoginGuard } from '../../services/login-guard/index.js';
import { addRateLimits, type RateLimitOptions } from './rate-limit.js';

export interface ProtectionOptions {
  /** Token buckets; left out, nothing is rate limited. */
  rateLimits?: RateLimitOptions;
  /** Connection limits of the HTTP server (only a listening server uses them). */
  http?: HttpLimits;
  /** Origins allowed by CORS; empty or left out, no CORS header is ever sent. */
  corsOrigins?: string[];
  /** Whether X-Forwarded-For is believed (request.ip, rate limits and logs follow it). */
  trustProxy?: TrustProxy;
}

type FastifyTrust = boolean | string[] | ((address: string, hop: number) => boolean);

/** Fastify's trustProxy option for the setting: a number is that many proxy hops in front of the server. */
function fastifyTrust(trust: TrustProxy): FastifyTrust {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

/**
 * A request's client address as Fastify's `request.ip` tells it, for requests Fastify does not see
 * (the read lane's): the socket's peer, or behind trusted proxies the last address X-Forwarded-For
 * names that is not one of them (the same @fastify/proxy-addr calls, on the same trust).
 */
export function clientAddress(trustProxy: TrustProxy = false): (request: IncomingMessage) => string {
  if (trustProxy === false) return (request) => request.socket.remoteAddress ?? '';
  const trust = fastifyTrust(trustProxy);
  const trusted =
    typeof trust === 'function' ? trust : Array.isArray(trust) ? proxyAddr.compile(trust) : () => true;
  return (request) => {
    const addresses = proxyAddr.all(request, trusted);
    return addresses[addresses.length - 1] ?? '';
  };
}

/** Fastify and Node server options for the limits: timeouts, header size, proxies. */
export function protectionServerOptions(options: ProtectionOptions = {}): FastifyHttpOptions<Server> {
  const trust = options.trustProxy ?? false;
  const server: FastifyHttpOptions<Server> = {
    // One line per request, written when it is answered (src/http/pipeline/answer-record.ts), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: fastifyTrust(trust),
  };
  const http = options.http;
  if (!http) return server;
  return {
    ...server,
    connectionTimeout: http.connectionTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    requestTimeout: http.requestTimeoutMs,
    maxRequestsPerSocket: http.maxRequestsPerSocket,
    http: {
      maxHeaderSize: http.maxHeaderSize,
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      connectionsCheckingInterval: http.timeoutCheckIntervalMs,
    },
  };
}

/**
 * The limits every request passes through: the connection limit, CORS when configured and the rate
 * limits. Call before registering routes.
 */
export async function addProtection(app: FastifyInstance, options: ProtectionOptions = {}): Promise<void> {
  if (options.http) app.server.maxConnections = options.http.maxConnections;

  if (options.corsOrigins && options.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: options.corsOrigins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      exposedHeaders: ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after', 'etag'],
      maxAge: 600,
    });
  }

  if (options.rateLimits) addRateLimits(app, options.rateLimits);
}

export interface Protection {
  /** For buildApp. */
  options: ProtectionOptions;
  /** For the AccessService and the sync API's bearer check. */
  guard: LoginGuard;
  /** Set when REDIS_URL is: the connection both share. */
  redis?: SharedRedis;
  /** Waits (briefly) for Redis, so that the first requests already share state; never fails. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function policy(name: string, bucket: RateBucket | null): BucketPolicy | undefined {
  return bucket && bucket.ratePerSecond > 0 && bucket.burst > 0 ? { name, ...bucket } : undefined;
}

/** The config fields that decide a server's limits and protections (the settings of src/config/settings.ts). */
export type ProtectionConfig = Pick<
  ServerConfig,
  | 'rateLimitCredential'
  | 'rateLimitAddress'
  | 'rateLimitAdminKey'
  | 'loginGuard'
  | 'redisUrl'
  | 'redisPrefix'
  | 'http'
  | 'corsOrigins'
  | 'trustProxy'
>;

/**
 * The rate limiter and login guard of a server, in Redis when `redisUrl` is set (every process
 * shares them), else in memory; and the HTTP limits, CORS and proxy settings of the config.
 */
export function createProtection(config: ProtectionConfig, log: SharedStateLog): Protection {
  const redis = config.redisUrl ? new SharedRedis(config.redisUrl, log) : undefined;
  const limiter = createRateLimiter(redis, config.redisPrefix);
  const guard = createLoginGuard(config.loginGuard, redis, config.redisPrefix);
  return {
    options: {
      rateLimits: {
        limiter,
        address: policy('address', config.rateLimitAddress),
        credential: policy('credential', config.rateLimitCredential),
        adminKey: policy('admin-key', config.rateLimitAdminKey),
      },
      http: config.http,
      corsOrigins: config.corsOrigins,
      trustProxy: config.trustProxy,
    },
    guard,
    redis,
    async start() {
      await redis?.connected(2_000);
    },
    async close() {
      await limiter.close();
      await guard.close();
      await redis?.close();
    },
  };
}
