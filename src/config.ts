import type { SettingUse } from './config/setting.js';
import {
  defaultSettings,
  SETTINGS,
  type SettingName,
  type SettingsFor,
  type SettingValues,
} from './config/settings.js';

/*
 * The server's configuration, made from the settings table (src/config/settings.ts). This module and
 * those of src/config/ import nothing else of the application: every part below may depend on them.
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

/** Connection limits of the HTTP server: the table's `http` settings (src/config/setting.ts). */
export interface HttpLimits extends Pick<SettingValues, SettingsFor<'http'>> {
  /** How often the timeouts are checked, ms: fixed, not a setting. */
  timeoutCheckIntervalMs: number;
}

/**
 * Every setting of the server: the table's `server` settings as they are (documented there), and the
 * fields `serverConfig` below makes of its `http` and `input` settings.
 */
export interface ServerConfig extends Pick<SettingValues, SettingsFor<'server'>> {
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
    ...valuesFor(values, 'server'),
    snapshotBudgetBytes: values.snapshotBudgetMb * 1024 * 1024,
    loginGuard: { windowMs: values.loginWindow * 1000, perPair, perAddress, perUsername },
    redisUrl: values.redisUrl || undefined,
    http: { ...valuesFor(values, 'http'), headersTimeoutMs, timeoutCheckIntervalMs: 1_000 },
    corsOrigins: values.corsOrigins ?? [],
    opsPort: values.opsPort ?? null,
    opsHost: values.opsHost ?? null,
  };
}

/** The values of the settings of one use, under their own names. */
function valuesFor<U extends SettingUse>(values: SettingValues, use: U): Pick<SettingValues, SettingsFor<U>> {
  const picked: Partial<SettingValues> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    if (SETTINGS[name].use === use) Object.assign(picked, { [name]: values[name] });
  }
  return picked as Pick<SettingValues, SettingsFor<U>>; // every name of that use, picked above
}

export const DEFAULTS: ServerConfig = serverConfig(defaultSettings());

export const DEFAULT_LOGIN_GUARD: LoginGuardLimits = DEFAULTS.loginGuard;
