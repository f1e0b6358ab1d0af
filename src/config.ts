import { defaultSettings, type SettingValues } from './config/settings.js';

/*
 * The server's configuration, made from the settings table (src/config/settings.ts). This module and
 * the two beside it import nothing else of the application: every part below may depend on them.
 */

export type { RateBucket, TrustProxy } from './config/parse.js';
export { DEFAULT_DATABASE, DEFAULT_POOL_SIZE, FORM_B_NAMES, type FormBNames } from './config/settings.js';

/**
 * Counts failed logins and refuses further attempts (src/services/login-guard) once one of three
 * counters reaches its limit within the window.
 */
export interface LoginGuardLimits {
  windowMs: number;
  /** Failures of one username from one address; 0 turns the counter off. */
  perPair: number;
  /** Failures from one address, whatever the username. */
  perAddress: number;
  /** Failures of one username, whatever the address. */
  perUsername: number;
}

/** Connection limits of the HTTP server; each is documented in the settings table. */
export interface HttpLimits
  extends Pick<
    SettingValues,
    | 'maxHeaderSize'
    | 'headersTimeoutMs'
    | 'requestTimeoutMs'
    | 'keepAliveTimeoutMs'
    | 'connectionTimeoutMs'
    | 'maxConnections'
    | 'maxRequestsPerSocket'
  > {
  /** How often the timeouts are checked, ms: fixed, not a setting. */
  timeoutCheckIntervalMs: number;
}

/**
 * Every setting of the server. The fields taken as they are from the table are documented there; the
 * others are made from one or two settings by `serverConfig` below.
 */
export interface ServerConfig
  extends Pick<
    SettingValues,
    | 'database'
    | 'databasePoolSize'
    | 'host'
    | 'port'
    | 'demo'
    | 'formBNames'
    | 'bodyLimit'
    | 'adminBodyLimit'
    | 'changePollMs'
    | 'changeRetentionDays'
    | 'maxStreams'
    | 'maxStreamsPerCredential'
    | 'streamHeartbeatMs'
    | 'streamMaxBacklog'
    | 'rememberCredentialsMs'
    | 'shutdownTimeoutMs'
    | 'drainDelayMs'
    | 'rateLimitCredential'
    | 'rateLimitAddress'
    | 'rateLimitAdminKey'
    | 'redisPrefix'
    | 'trustProxy'
    | 'webhookKey'
    | 'webhookAllowPrivate'
    | 'webhookTimeoutMs'
    | 'webhookRetrySchedule'
    | 'webhookDisableAfter'
  > {
  /** Most bytes of serialized answers kept in memory per process (README: "Menu snapshots"). */
  snapshotBudgetBytes: number;
  /** Failed logins before further attempts are refused (429) until the window passes. */
  loginGuard: LoginGuardLimits;
  /** Where rate-limit and login-failure state is shared by every process; unset, in memory. */
  redisUrl?: string;
  http: HttpLimits;
  /** Origins allowed by CORS; empty (the default) sends no CORS headers at all. */
  corsOrigins: string[];
  /** A second listener for /healthz, /readyz and /metrics, which then leave the public port; null: none. */
  opsPort: number | null;
  /** Address of the ops listener; null: the same as `host`. */
  opsHost: string | null;
  /** A `serve --workers` worker: the primary serves the ops port; the worker only keeps the routes off its public port. */
  opsServedElsewhere?: boolean;
}

/** The server configuration the settings describe. */
export function serverConfig(values: SettingValues): ServerConfig {
  const [perPair, perAddress, perUsername] = values.loginFailures;
  // Node refuses a headers timeout longer than the request timeout: the shorter one wins.
  const headersTimeoutMs =
    values.requestTimeoutMs > 0
      ? Math.min(values.headersTimeoutMs, values.requestTimeoutMs)
      : values.headersTimeoutMs;
  return {
    database: values.database,
    databasePoolSize: values.databasePoolSize,
    host: values.host,
    port: values.port,
    demo: values.demo,
    formBNames: values.formBNames,
    bodyLimit: values.bodyLimit,
    adminBodyLimit: values.adminBodyLimit,
    changePollMs: values.changePollMs,
    changeRetentionDays: values.changeRetentionDays,
    maxStreams: values.maxStreams,
    maxStreamsPerCredential: values.maxStreamsPerCredential,
    streamHeartbeatMs: values.streamHeartbeatMs,
    streamMaxBacklog: values.streamMaxBacklog,
    rememberCredentialsMs: values.rememberCredentialsMs,
    shutdownTimeoutMs: values.shutdownTimeoutMs,
    drainDelayMs: values.drainDelayMs,
    snapshotBudgetBytes: values.snapshotBudgetMb * 1024 * 1024,
    rateLimitCredential: values.rateLimitCredential,
    rateLimitAddress: values.rateLimitAddress,
    rateLimitAdminKey: values.rateLimitAdminKey,
    loginGuard: { windowMs: values.loginWindow * 1000, perPair, perAddress, perUsername },
    redisUrl: values.redisUrl || undefined,
    redisPrefix: values.redisPrefix,
    http: {
      maxHeaderSize: values.maxHeaderSize,
      headersTimeoutMs,
      requestTimeoutMs: values.requestTimeoutMs,
      keepAliveTimeoutMs: values.keepAliveTimeoutMs,
      connectionTimeoutMs: values.connectionTimeoutMs,
      maxConnections: values.maxConnections,
      maxRequestsPerSocket: values.maxRequestsPerSocket,
      timeoutCheckIntervalMs: 1_000,
    },
    corsOrigins: values.corsOrigins ?? [],
    trustProxy: values.trustProxy,
    webhookKey: values.webhookKey,
    webhookAllowPrivate: values.webhookAllowPrivate,
    webhookTimeoutMs: values.webhookTimeoutMs,
    webhookRetrySchedule: values.webhookRetrySchedule,
    webhookDisableAfter: values.webhookDisableAfter,
    opsPort: values.opsPort ?? null,
    opsHost: values.opsHost ?? null,
  };
}

export const DEFAULTS: ServerConfig = serverConfig(defaultSettings());

export const DEFAULT_LOGIN_GUARD: LoginGuardLimits = DEFAULTS.loginGuard;
