import { isIP } from 'node:net';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULTS, type HttpLimits, type RateBucket, type TrustProxy } from '../config.js';
import type { ProtectionConfig } from '../http/protection.js';

/** `RATE,BURST` (requests per second, bucket size) or `off`. */
export function parseBucket(value: string): RateBucket | null {
  if (value.trim().toLowerCase() === 'off') return null;
  const parts = value.split(',').map((part) => Number(part.trim()));
  const [rate, burst] = parts;
  if (
    parts.length !== 2 ||
    !(rate! > 0) ||
    !Number.isFinite(rate) ||
    !Number.isInteger(burst) ||
    burst! < 1
  ) {
    throw new InvalidArgumentError(
      `expected RATE,BURST (requests per second, then the burst, e.g. 20,100) or off, not "${value}"`,
    );
  }
  return { ratePerSecond: rate!, burst: burst! };
}

function formatBucket(bucket: RateBucket | null): string {
  return bucket ? `${bucket.ratePerSecond},${bucket.burst}` : 'off';
}

/** `PAIR,ADDRESS,USERNAME`: failed logins per username and address, per address, per username. */
export function parseLoginFailures(value: string): [number, number, number] {
  const parts = value.split(',').map((part) => Number(part.trim()));
  if (parts.length !== 3 || parts.some((part) => !Number.isInteger(part) || part < 0)) {
    throw new InvalidArgumentError(
      `expected three whole numbers PAIR,ADDRESS,USERNAME (e.g. 10,50,200; 0 turns one off), not "${value}"`,
    );
  }
  return parts as [number, number, number];
}

function wholeNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new InvalidArgumentError(`not a whole number: "${value}"`);
  return parsed;
}

/** `false` (the default), `true`, a number of proxy hops, or a comma list of addresses and CIDRs. */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(entry);
    const family = isIP(address);
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!named && (family === 0 || !bitsOk)) {
      throw new InvalidArgumentError(
        `expected false, true, a number of proxy hops, or addresses/CIDRs such as 10.0.0.0/8,loopback; "${entry}" is none`,
      );
    }
  }
  return entries;
}

/** A comma list of origins such as https://shop.example; each must be exactly scheme://host[:port]. */
export function parseOrigins(value: string): string[] {
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) {
      throw new InvalidArgumentError(
        `"${origin}" is not an origin: write scheme://host[:port], e.g. https://shop.example, without a path`,
      );
    }
  }
  return origins;
}

/** The rate limit, login guard, connection, CORS and proxy options of `serve`. */
export function addLimitOptions(command: Command): Command {
  const http = DEFAULTS.http;
  const guard = DEFAULTS.loginGuard;
  const number = (flag: string, description: string, env: string, fallback: number) =>
    new Option(flag, description).env(env).default(fallback).argParser(wholeNumber);
  return command
    .addOption(
      new Option(
        '--rate-limit-credential <rate,burst>',
        'requests per second and burst per credential, or off',
      )
        .env('RATE_LIMIT_CREDENTIAL')
        .default(DEFAULTS.rateLimitCredential, formatBucket(DEFAULTS.rateLimitCredential))
        .argParser(parseBucket),
    )
    .addOption(
      new Option(
        '--rate-limit-address <rate,burst>',
        'requests per second and burst per client address, or off',
      )
        .env('RATE_LIMIT_ADDRESS')
        .default(DEFAULTS.rateLimitAddress, formatBucket(DEFAULTS.rateLimitAddress))
        .argParser(parseBucket),
    )
    .addOption(
      new Option(
        '--rate-limit-admin-key <rate,burst>',
        'sync API requests per second and burst per admin key, or off',
      )
        .env('RATE_LIMIT_ADMIN_KEY')
        .default(DEFAULTS.rateLimitAdminKey, formatBucket(DEFAULTS.rateLimitAdminKey))
        .argParser(parseBucket),
    )
    .addOption(
      new Option(
        '--login-failures <pair,address,username>',
        'failed logins per window before 429: per username and address, per address, per username',
      )
        .env('LOGIN_FAILURES')
        .default(
          [guard.perPair, guard.perAddress, guard.perUsername],
          `${guard.perPair},${guard.perAddress},${guard.perUsername}`,
        )
        .argParser(parseLoginFailures),
    )
    .addOption(
      number(
        '--login-window <seconds>',
        'window of the failed-login counters',
        'LOGIN_WINDOW_SECONDS',
        guard.windowMs / 1000,
      ),
    )
    .addOption(
      new Option('--redis-url <url>', 'share rate limits and login failures between processes in Redis').env(
        'REDIS_URL',
      ),
    )
    .addOption(
      new Option('--redis-prefix <prefix>', 'prefix of every Redis key (deployments sharing one Redis)')
        .env('REDIS_PREFIX')
        .default(DEFAULTS.redisPrefix),
    )
    .addOption(
      number(
        '--max-header-size <bytes>',
        'largest request headers (431 above)',
        'MAX_HEADER_SIZE',
        http.maxHeaderSize,
      ),
    )
    .addOption(
      number(
        '--headers-timeout-ms <ms>',
        'time for the request headers to arrive',
        'HEADERS_TIMEOUT_MS',
        http.headersTimeoutMs,
      ),
    )
    .addOption(
      number(
        '--request-timeout-ms <ms>',
        'time for the whole request to arrive',
        'REQUEST_TIMEOUT_MS',
        http.requestTimeoutMs,
      ),
    )
    .addOption(
      number(
        '--keep-alive-timeout-ms <ms>',
        'idle keep-alive connections close after',
        'KEEP_ALIVE_TIMEOUT_MS',
        http.keepAliveTimeoutMs,
      ),
    )
    .addOption(
      number(
        '--connection-timeout-ms <ms>',
        'a connection without traffic either way closes after',
        'CONNECTION_TIMEOUT_MS',
        http.connectionTimeoutMs,
      ),
    )
    .addOption(
      number('--max-connections <n>', 'open connections per process', 'MAX_CONNECTIONS', http.maxConnections),
    )
    .addOption(
      number(
        '--max-requests-per-socket <n>',
        'requests per connection before it closes (0: no limit)',
        'MAX_REQUESTS_PER_SOCKET',
        http.maxRequestsPerSocket,
      ),
    )
    .addOption(
      new Option('--cors-origin <origins>', 'allow these browser origins (comma list); default: CORS off')
        .env('CORS_ORIGINS')
        .argParser(parseOrigins),
    )
    .addOption(
      new Option(
        '--trust-proxy <value>',
        'believe X-Forwarded-For: false, true, proxy hops, or addresses/CIDRs',
      )
        .env('TRUST_PROXY')
        .default(false as TrustProxy, 'false')
        .argParser(parseTrustProxy),
    );
}

export interface LimitOptionValues {
  rateLimitCredential: RateBucket | null;
  rateLimitAddress: RateBucket | null;
  rateLimitAdminKey: RateBucket | null;
  loginFailures: [number, number, number];
  loginWindow: number;
  redisUrl?: string;
  redisPrefix: string;
  maxHeaderSize: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  connectionTimeoutMs: number;
  maxConnections: number;
  maxRequestsPerSocket: number;
  corsOrigin?: string[];
  trustProxy: TrustProxy;
}

/** The config fields the options above set. */
export function limitConfig(options: LimitOptionValues): ProtectionConfig {
  const [perPair, perAddress, perUsername] = options.loginFailures;
  const requestTimeoutMs = Number(options.requestTimeoutMs);
  // Node refuses a headers timeout longer than the request timeout: the shorter one wins.
  const headersTimeoutMs =
    requestTimeoutMs > 0
      ? Math.min(Number(options.headersTimeoutMs), requestTimeoutMs)
      : Number(options.headersTimeoutMs);
  const http: HttpLimits = {
    ...DEFAULTS.http,
    maxHeaderSize: Number(options.maxHeaderSize),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: Number(options.keepAliveTimeoutMs),
    connectionTimeoutMs: Number(options.connectionTimeoutMs),
    maxConnections: Number(options.maxConnections),
    maxRequestsPerSocket: Number(options.maxRequestsPerSocket),
  };
  return {
    rateLimitCredential: options.rateLimitCredential,
    rateLimitAddress: options.rateLimitAddress,
    rateLimitAdminKey: options.rateLimitAdminKey,
    loginGuard: { windowMs: Number(options.loginWindow) * 1000, perPair, perAddress, perUsername },
    redisUrl: options.redisUrl || undefined,
    redisPrefix: options.redisPrefix,
    http,
    corsOrigins: options.corsOrigin ?? [],
    trustProxy: options.trustProxy,
  };
}
