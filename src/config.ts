import type { FormBNames } from './forms/form.js';
import { DEFAULT_LOGIN_GUARD, type LoginGuardLimits } from './services/login-guard/login-guard.js';
import { DEFAULT_DATABASE, DEFAULT_POOL_SIZE } from './store/open.js';

/** Every setting of the server, with its default. The CLI and environment fill these in. */
export interface ServerConfig {
  database: string;
  /** PostgreSQL: the most connections one process opens for queries (one more listens for changes). */
  databasePoolSize: number;
  host: string;
  port: number;
  formBNames: FormBNames;
  /** Largest request body of the public endpoints, bytes. */
  bodyLimit: number;
  /** Largest request body of the sync API (/admin/v1), bytes: a full sync of a large menu. */
  adminBodyLimit: number;
  /** How often a process looks for changes written by other processes (the CLI), ms. */
  changePollMs: number;
  /** How long a verified username and password are remembered, ms. */
  rememberCredentialsMs: number;
  /** Most bytes of serialized answers kept in memory per process (README: "Menu snapshots"). */
  snapshotBudgetBytes: number;
  demo: boolean;
  /** Token buckets (README: "Limits and abuse protection"); null turns one off. */
  rateLimitCredential: RateBucket | null;
  rateLimitAddress: RateBucket | null;
  rateLimitAdminKey: RateBucket | null;
  /** Failed logins before further attempts are refused (429) until the window passes. */
  loginGuard: LoginGuardLimits;
  /** Where rate-limit and login-failure state is shared by every process; unset, in memory. */
  redisUrl?: string;
  /** Prepended to every Redis key, so that deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  /** Connection limits of the HTTP server. */
  http: HttpLimits;
  /** Origins allowed by CORS; empty (the default) sends no CORS headers at all. */
  corsOrigins: string[];
  /** Whether X-Forwarded-For is believed: false, true, a number of proxy hops, or addresses/CIDRs. */
  trustProxy: TrustProxy;
  /** A second listener for /healthz, /readyz and /metrics, which then leave the public port; null: none. */
  opsPort: number | null;
  /** Address of the ops listener; null: the same as `host`. */
  opsHost: string | null;
  /** A `serve --workers` worker: the primary serves the ops port; the worker only keeps the routes off its public port. */
  opsServedElsewhere?: boolean;
  /** On SIGTERM or SIGINT, how long requests in flight get to finish before they are cut off, ms. */
  shutdownTimeoutMs: number;
}

export interface RateBucket {
  ratePerSecond: number;
  burst: number;
}

export type TrustProxy = boolean | number | string[];

export interface HttpLimits {
  /** Largest request line plus headers, bytes (Node's maxHeaderSize); over it, 431. */
  maxHeaderSize: number;
  /** Time for the request headers to arrive, ms (slowloris); over it, 408 and the connection closes. */
  headersTimeoutMs: number;
  /** Time for the whole request (headers and body) to arrive, ms; over it, 408. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open, ms. */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed, ms (a client that stops reading). */
  connectionTimeoutMs: number;
  /** Open connections per process; more are closed at once. */
  maxConnections: number;
  /** Requests on one connection before it is closed (the client reconnects); 0 is unlimited. */
  maxRequestsPerSocket: number;
  /** How often the timeouts above are checked, ms. */
  timeoutCheckIntervalMs: number;
}

export const DEFAULTS: ServerConfig = {
  database: DEFAULT_DATABASE,
  databasePoolSize: DEFAULT_POOL_SIZE,
  host: '127.0.0.1',
  port: 8080,
  formBNames: 'both',
  bodyLimit: 64 * 1024,
  adminBodyLimit: 16 * 1024 * 1024,
  changePollMs: 250,
  rememberCredentialsMs: 5 * 60 * 1000,
  snapshotBudgetBytes: 256 * 1024 * 1024,
  demo: false,
  rateLimitCredential: { ratePerSecond: 20, burst: 100 },
  rateLimitAddress: { ratePerSecond: 50, burst: 200 },
  rateLimitAdminKey: { ratePerSecond: 20, burst: 100 },
  loginGuard: DEFAULT_LOGIN_GUARD,
  redisPrefix: 'menu-api:',
  http: {
    maxHeaderSize: 16 * 1024,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 60_000,
    keepAliveTimeoutMs: 65_000,
    connectionTimeoutMs: 120_000,
    maxConnections: 4096,
    maxRequestsPerSocket: 1000,
    timeoutCheckIntervalMs: 1_000,
  },
  corsOrigins: [],
  trustProxy: false,
  opsPort: null,
  opsHost: null,
  shutdownTimeoutMs: 10_000,
};

export const FORM_B_NAMES: readonly FormBNames[] = ['both', 'table', 'sample'];
