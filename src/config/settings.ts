import { HTTP_LIMIT_SETTINGS } from './http-limits.js';
import {
  formatBucket,
  limitNumber,
  parseBoolean,
  parseBucket,
  parseDomains,
  parseLoginFailures,
  parseOrigins,
  parseTrustProxy,
  poolSize,
  type RateBucket,
  type TrustProxy,
  wholeNumber,
} from './parse.js';
import { processSetting, type Setting, type SettingUse, serverInput, serverSetting } from './setting.js';
import { WEBHOOK_SETTINGS } from './webhook-settings.js';

/**
 * Every setting of the program, declared once: its option, its environment variable, how its text is
 * parsed, its default, one line of documentation, and what the server makes of it (./setting.ts). The
 * `serve` options (src/cli/settings-options.ts), the typed server configuration (src/config.ts) and
 * the README's configuration table (`npm run settings`) are all made from this table, and no setting
 * is read from the environment anywhere else (test/project/settings-env.test.ts).
 */

export const DEFAULT_DATABASE = './data/menu.db';
export const DEFAULT_POOL_SIZE = 10;
export const FORM_B_NAMES = ['both', 'table', 'sample'] as const;
/** Which spellings Form B answers carry: both, the table's (brand, variants) or the sample's. */
export type FormBNames = (typeof FORM_B_NAMES)[number];
/** How a confirmed registration at /developers becomes an integrator: an operator decides, or confirmation is enough. */
export const INTEGRATOR_APPROVALS = ['manual', 'automatic'] as const;
export type IntegratorApproval = (typeof INTEGRATOR_APPROVALS)[number];

const DEFAULT_BUCKETS = {
  credential: { ratePerSecond: 20, burst: 100 },
  address: { ratePerSecond: 50, burst: 200 },
  adminKey: { ratePerSecond: 20, burst: 100 },
} satisfies Record<string, RateBucket>;

export const SETTINGS = {
  database: serverSetting({
    flag: '--db <address>',
    env: 'DATABASE_URL',
    doc: 'database: a SQLite file path, sqlite:PATH, or postgres://USER@HOST/DB',
    scope: 'global',
    default: DEFAULT_DATABASE,
  }),
  databasePoolSize: serverSetting({
    flag: '--db-pool-size <n>',
    env: 'DATABASE_POOL_SIZE',
    doc: 'PostgreSQL: most connections per process (one more listens for changes)',
    scope: 'global',
    parse: poolSize,
    default: DEFAULT_POOL_SIZE,
  }),
  host: serverSetting({
    flag: '--host <host>',
    env: 'HOST',
    doc: 'address to listen on',
    default: '127.0.0.1',
  }),
  port: serverSetting({
    flag: '--port <port>',
    env: 'PORT',
    doc: 'port to listen on (0 picks a free one)',
    parse: wholeNumber('--port'),
    default: 8080,
  }),
  demo: serverSetting({
    flag: '--demo',
    env: 'DEMO',
    doc: 'load the demo dispensary, credential and menu (once) and print curl commands',
    parse: parseBoolean,
    default: false,
  }),
  formBNames: serverSetting<FormBNames>({
    flag: '--form-b-names <names>',
    env: 'FORM_B_NAMES',
    doc: 'Form B spellings: both, table (brand, variants) or sample (brand_name, prices)',
    choices: FORM_B_NAMES,
    default: 'both',
  }),
  bodyLimit: serverSetting({
    flag: '--body-limit <bytes>',
    env: 'BODY_LIMIT',
    doc: 'largest request body of the public endpoints, bytes',
    parse: wholeNumber('--body-limit'),
    default: 64 * 1024,
  }),
  adminBodyLimit: serverSetting({
    flag: '--admin-body-limit <bytes>',
    env: 'ADMIN_BODY_LIMIT',
    doc: 'largest request body of the sync API (/admin/v1), bytes: a full sync of a large menu',
    parse: wholeNumber('--admin-body-limit'),
    default: 16 * 1024 * 1024,
  }),
  changePollMs: serverSetting({
    flag: '--change-poll-ms <ms>',
    env: 'CHANGE_POLL_MS',
    doc: 'how often to look for changes made by other processes',
    parse: wholeNumber('--change-poll-ms'),
    default: 250,
  }),
  changeRetentionDays: serverSetting({
    flag: '--change-retention-days <days>',
    env: 'CHANGE_RETENTION_DAYS',
    doc: 'how long the live feed keeps each change (/changes, /events); older cursors get 410',
    parse: limitNumber,
    default: 7,
  }),
  maxStreams: serverSetting({
    flag: '--max-streams <n>',
    env: 'MAX_STREAMS',
    doc: 'open /events streams per process (429 above)',
    parse: limitNumber,
    default: 10_000,
  }),
  maxStreamsPerCredential: serverSetting({
    flag: '--max-streams-per-credential <n>',
    env: 'MAX_STREAMS_PER_CREDENTIAL',
    doc: 'open /events streams per credential and process (429 above)',
    parse: limitNumber,
    default: 500,
  }),
  streamHeartbeatMs: serverSetting({
    flag: '--stream-heartbeat-ms <ms>',
    env: 'STREAM_HEARTBEAT_MS',
    doc: 'how often an /events stream gets a comment line (keeps proxies from closing it)',
    parse: limitNumber,
    default: 15_000,
  }),
  streamMaxBacklog: serverSetting({
    flag: '--stream-max-backlog <events>',
    env: 'STREAM_MAX_BACKLOG',
    doc: 'events an /events reader may fall behind before it is cut off (it resumes with Last-Event-ID)',
    parse: limitNumber,
    default: 1_000,
  }),
  rememberCredentialsMs: serverSetting({
    flag: '--remember-credentials-ms <ms>',
    env: 'REMEMBER_CREDENTIALS_MS',
    doc: 'how long a verified username and password are remembered',
    parse: wholeNumber('--remember-credentials-ms'),
    default: 5 * 60 * 1000,
  }),
  workers: processSetting({
    flag: '--workers <n>',
    env: 'WORKERS',
    doc: 'server processes sharing the port: a number, or auto for one per core',
    default: '1',
  }),
  opsPort: serverInput<number | undefined>({
    flag: '--ops-port <port>',
    env: 'OPS_PORT',
    doc: 'serve /healthz, /readyz and /metrics on this port only (0 picks one)',
    parse: wholeNumber('--ops-port'),
    default: undefined,
  }),
  opsHost: serverInput<string | undefined>({
    flag: '--ops-host <host>',
    env: 'OPS_HOST',
    doc: 'address of the ops listener (default: --host)',
    default: undefined,
  }),
  shutdownTimeoutMs: serverSetting({
    flag: '--shutdown-timeout-ms <ms>',
    env: 'SHUTDOWN_TIMEOUT_MS',
    doc: 'on SIGTERM/SIGINT, how long requests in flight may take (counted from the signal, drain delay included); the process exits at most 2 s later whatever happens',
    parse: wholeNumber('--shutdown-timeout-ms'),
    default: 10_000,
  }),
  drainDelayMs: serverSetting({
    flag: '--drain-delay-ms <ms>',
    env: 'DRAIN_DELAY_MS',
    doc: 'on SIGTERM, how long to keep serving (every answer with Connection: close) while /readyz says 503, before the listener closes: time for a load balancer to stop sending; SIGINT skips it',
    parse: wholeNumber('--drain-delay-ms'),
    default: 2_000,
  }),
  logBufferKb: processSetting({
    flag: '--log-buffer-kb <kb>',
    env: 'LOG_BUFFER_KB',
    doc: 'most log output kept waiting for a slow stdout, KiB; lines beyond it are dropped and counted (menu_api_log_lines_dropped_total)',
    parse: wholeNumber('--log-buffer-kb'),
    default: 1_024,
  }),
  snapshotBudgetMb: serverInput({
    flag: '--snapshot-budget-mb <mb>',
    env: 'SNAPSHOT_BUDGET_MB',
    doc: 'memory for serialized menus per process, MiB (least recently used go)',
    parse: wholeNumber('--snapshot-budget-mb'),
    default: 256,
  }),
  logLevel: processSetting({
    flag: '--log-level <level>',
    env: 'LOG_LEVEL',
    doc: 'log level',
    default: 'info',
  }),
  rateLimitCredential: serverSetting({
    flag: '--rate-limit-credential <rate,burst>',
    env: 'RATE_LIMIT_CREDENTIAL',
    doc: 'requests per second and burst per credential, or off',
    parse: parseBucket,
    default: DEFAULT_BUCKETS.credential,
    shown: formatBucket(DEFAULT_BUCKETS.credential),
  }),
  rateLimitAddress: serverSetting({
    flag: '--rate-limit-address <rate,burst>',
    env: 'RATE_LIMIT_ADDRESS',
    doc: 'requests per second and burst per client address, or off',
    parse: parseBucket,
    default: DEFAULT_BUCKETS.address,
    shown: formatBucket(DEFAULT_BUCKETS.address),
  }),
  rateLimitAdminKey: serverSetting({
    flag: '--rate-limit-admin-key <rate,burst>',
    env: 'RATE_LIMIT_ADMIN_KEY',
    doc: 'sync API requests per second and burst per admin key, or off',
    parse: parseBucket,
    default: DEFAULT_BUCKETS.adminKey,
    shown: formatBucket(DEFAULT_BUCKETS.adminKey),
  }),
  loginFailures: serverInput<[number, number, number]>({
    flag: '--login-failures <pair,address,username>',
    env: 'LOGIN_FAILURES',
    doc: 'failed logins per window before 429: per username and address, per address, per username',
    parse: parseLoginFailures,
    default: [10, 50, 200],
    shown: '10,50,200',
  }),
  loginWindow: serverInput({
    flag: '--login-window <seconds>',
    env: 'LOGIN_WINDOW_SECONDS',
    doc: 'window of the failed-login counters',
    parse: limitNumber,
    default: 15 * 60,
  }),
  redisUrl: serverInput<string | undefined>({
    flag: '--redis-url <url>',
    env: 'REDIS_URL',
    doc: 'share rate limits and login failures between processes in Redis',
    default: undefined,
  }),
  redisPrefix: serverSetting({
    flag: '--redis-prefix <prefix>',
    env: 'REDIS_PREFIX',
    doc: 'prefix of every Redis key (deployments sharing one Redis)',
    default: 'menu-api:',
  }),
  ...HTTP_LIMIT_SETTINGS,
  corsOrigins: serverInput<string[] | undefined>({
    flag: '--cors-origin <origins>',
    env: 'CORS_ORIGINS',
    doc: 'allow these browser origins (comma list); default: CORS off',
    parse: parseOrigins,
    default: undefined,
  }),
  consoleIdleTimeout: serverSetting({
    flag: '--console-idle-timeout <seconds>',
    env: 'CONSOLE_IDLE_TIMEOUT_SECONDS',
    doc: 'a console session unused this long ends (it is renewed at most once a minute)',
    parse: wholeNumber('--console-idle-timeout'),
    default: 30 * 60,
  }),
  consoleSessionLifetime: serverSetting({
    flag: '--console-session-lifetime <seconds>',
    env: 'CONSOLE_SESSION_LIFETIME_SECONDS',
    doc: 'a console session ends this long after sign-in, however much it is used',
    parse: wholeNumber('--console-session-lifetime'),
    default: 12 * 60 * 60,
  }),
  requireSecondFactor: serverSetting({
    flag: '--require-second-factor',
    env: 'REQUIRE_SECOND_FACTOR',
    doc: 'every sign-in needs a second factor: a passkey, or password and one-time code; an account without codes is made to set them up right after its password',
    parse: parseBoolean,
    default: false,
  }),
  trustProxy: serverSetting<TrustProxy>({
    flag: '--trust-proxy <value>',
    env: 'TRUST_PROXY',
    doc: 'believe X-Forwarded-For: false, true, proxy hops, or addresses/CIDRs',
    parse: parseTrustProxy,
    default: false,
    shown: 'false',
  }),
  publicUrl: serverSetting<string | undefined>({
    flag: '--public-url <url>',
    env: 'PUBLIC_URL',
    doc: 'the address people reach this server at, for the one-time links of accounts (default: as the request came; the CLI: http://127.0.0.1:8080)',
    scope: 'global',
    default: undefined,
  }),
  smtpUrl: serverSetting<string | undefined>({
    flag: '--smtp-url <url>',
    env: 'SMTP_URL',
    doc: 'email invitations and password links through this SMTP server (smtp:// or smtps://user:pass@host:port); unset: printed only (prefer the variable)',
    scope: 'global',
    default: undefined,
  }),
  integratorApproval: serverSetting<IntegratorApproval>({
    flag: '--integrator-approval <mode>',
    env: 'INTEGRATOR_APPROVAL',
    doc: 'integrators who register at /developers and confirm their email: manual (an operator approves each) or automatic',
    choices: INTEGRATOR_APPROVALS,
    default: 'manual',
  }),
  oidcIssuer: serverSetting<string | undefined>({
    flag: '--oidc-issuer <url>',
    env: 'OIDC_ISSUER',
    doc: 'single sign-on to the console with this OpenID Connect provider (its issuer URL; discovery from it); see People and accounts',
    default: undefined,
  }),
  oidcClientId: serverSetting<string | undefined>({
    flag: '--oidc-client-id <id>',
    env: 'OIDC_CLIENT_ID',
    doc: 'the client id this server has at the OpenID Connect provider',
    default: undefined,
  }),
  oidcClientSecret: serverSetting<string | undefined>({
    flag: '--oidc-client-secret <secret>',
    env: 'OIDC_CLIENT_SECRET',
    doc: 'the client secret this server has at the OpenID Connect provider; never logged (prefer the variable)',
    default: undefined,
  }),
  oidcAllowedDomains: serverSetting<string[] | undefined>({
    flag: '--oidc-allowed-domain <domains>',
    env: 'OIDC_ALLOWED_DOMAINS',
    doc: 'people whose verified email is at these domains (repeatable, or a comma list) may join by single sign-on, as staff of no dispensary until a manager adds them',
    parse: parseDomains,
    default: undefined,
  }),
  ...WEBHOOK_SETTINGS,
};

type Table = typeof SETTINGS;
export type SettingName = keyof Table;

/** The value of every setting, typed by the table: what `serve` reads from its options. */
export type SettingValues = { [Name in SettingName]: Table[Name] extends Setting<infer T> ? T : never };

/** The names of the settings of one use (./setting.ts). */
export type SettingsFor<U extends SettingUse> = {
  [Name in SettingName]: Table[Name]['use'] extends U ? Name : never;
}[SettingName];

/** Every setting at its default. */
export function defaultSettings(): SettingValues {
  return Object.fromEntries(
    Object.entries(SETTINGS).map(([name, entry]) => [name, entry.default]),
  ) as SettingValues; // built from the table's own entries, key by key
}
