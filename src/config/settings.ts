import {
  formatBucket,
  formatDuration,
  limitNumber,
  parseBoolean,
  parseBucket,
  parseDuration,
  parseLoginFailures,
  parseOrigins,
  parseSchedule,
  parseTrustProxy,
  poolSize,
  type RateBucket,
  type TrustProxy,
  wholeNumber,
} from './parse.js';

/**
 * Every setting of the program, declared once: its option, its environment variable, how its text is
 * parsed, its default and one line of documentation. The `serve` options (src/cli/settings-options.ts),
 * the typed server configuration (src/config.ts) and the README's configuration table
 * (`npm run settings`) are all made from this table.
 */
export interface Setting<T> {
  /** The option as commander spells it: `--port <port>`, or `--demo` for a switch. */
  flag: string;
  /** The environment variable; an option given on the command line wins over it. */
  env: string;
  /** One line: the option's help and the README's description. */
  doc: string;
  /** Where the option is: on every command (`global`, the database), or on `serve`. */
  scope: 'global' | 'serve';
  /** Text to value; absent for plain text. Throws commander's InvalidArgumentError. */
  parse?: (text: string) => T;
  /** The only values accepted (commander lists them in its error). */
  choices?: readonly string[];
  /** The value when neither the option nor the variable is given; undefined: unset. */
  default: T;
  /** How the default is written in --help and the README, when not as JSON. */
  shown?: string;
}

/** Keeps each entry's value type (T) for SettingValues below. */
const setting = <T>(entry: Setting<T>): Setting<T> => entry;

export const DEFAULT_DATABASE = './data/menu.db';
export const DEFAULT_POOL_SIZE = 10;
export const FORM_B_NAMES = ['both', 'table', 'sample'] as const;
/** Which spellings Form B answers carry: both, the table's (brand, variants) or the sample's. */
export type FormBNames = (typeof FORM_B_NAMES)[number];

const DEFAULT_BUCKETS = {
  credential: { ratePerSecond: 20, burst: 100 },
  address: { ratePerSecond: 50, burst: 200 },
  adminKey: { ratePerSecond: 20, burst: 100 },
} satisfies Record<string, RateBucket>;

/** Retries of a webhook delivery: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (each with jitter). */
const DEFAULT_WEBHOOK_RETRIES = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export const SETTINGS = {
  database: setting({
    flag: '--db <address>',
    env: 'DATABASE_URL',
    doc: 'database: a SQLite file path, sqlite:PATH, or postgres://USER@HOST/DB',
    scope: 'global',
    default: DEFAULT_DATABASE,
  }),
  databasePoolSize: setting({
    flag: '--db-pool-size <n>',
    env: 'DATABASE_POOL_SIZE',
    doc: 'PostgreSQL: most connections per process (one more listens for changes)',
    scope: 'global',
    parse: poolSize,
    default: DEFAULT_POOL_SIZE,
  }),
  host: setting({
    flag: '--host <host>',
    env: 'HOST',
    doc: 'address to listen on',
    scope: 'serve',
    default: '127.0.0.1',
  }),
  port: setting({
    flag: '--port <port>',
    env: 'PORT',
    doc: 'port to listen on (0 picks a free one)',
    scope: 'serve',
    parse: wholeNumber('--port'),
    default: 8080,
  }),
  demo: setting({
    flag: '--demo',
    env: 'DEMO',
    doc: 'load the demo dispensary, credential and menu (once) and print curl commands',
    scope: 'serve',
    parse: parseBoolean,
    default: false,
  }),
  formBNames: setting<FormBNames>({
    flag: '--form-b-names <names>',
    env: 'FORM_B_NAMES',
    doc: 'Form B spellings: both, table (brand, variants) or sample (brand_name, prices)',
    scope: 'serve',
    choices: FORM_B_NAMES,
    default: 'both',
  }),
  bodyLimit: setting({
    flag: '--body-limit <bytes>',
    env: 'BODY_LIMIT',
    doc: 'largest request body of the public endpoints, bytes',
    scope: 'serve',
    parse: wholeNumber('--body-limit'),
    default: 64 * 1024,
  }),
  adminBodyLimit: setting({
    flag: '--admin-body-limit <bytes>',
    env: 'ADMIN_BODY_LIMIT',
    doc: 'largest request body of the sync API (/admin/v1), bytes: a full sync of a large menu',
    scope: 'serve',
    parse: wholeNumber('--admin-body-limit'),
    default: 16 * 1024 * 1024,
  }),
  changePollMs: setting({
    flag: '--change-poll-ms <ms>',
    env: 'CHANGE_POLL_MS',
    doc: 'how often to look for changes made by other processes',
    scope: 'serve',
    parse: wholeNumber('--change-poll-ms'),
    default: 250,
  }),
  changeRetentionDays: setting({
    flag: '--change-retention-days <days>',
    env: 'CHANGE_RETENTION_DAYS',
    doc: 'how long the live feed keeps each change (/changes, /events); older cursors get 410',
    scope: 'serve',
    parse: limitNumber,
    default: 7,
  }),
  maxStreams: setting({
    flag: '--max-streams <n>',
    env: 'MAX_STREAMS',
    doc: 'open /events streams per process (429 above)',
    scope: 'serve',
    parse: limitNumber,
    default: 10_000,
  }),
  maxStreamsPerCredential: setting({
    flag: '--max-streams-per-credential <n>',
    env: 'MAX_STREAMS_PER_CREDENTIAL',
    doc: 'open /events streams per credential and process (429 above)',
    scope: 'serve',
    parse: limitNumber,
    default: 500,
  }),
  streamHeartbeatMs: setting({
    flag: '--stream-heartbeat-ms <ms>',
    env: 'STREAM_HEARTBEAT_MS',
    doc: 'how often an /events stream gets a comment line (keeps proxies from closing it)',
    scope: 'serve',
    parse: limitNumber,
    default: 15_000,
  }),
  streamMaxBacklog: setting({
    flag: '--stream-max-backlog <events>',
    env: 'STREAM_MAX_BACKLOG',
    doc: 'events an /events reader may fall behind before it is cut off (it resumes with Last-Event-ID)',
    scope: 'serve',
    parse: limitNumber,
    default: 1_000,
  }),
  rememberCredentialsMs: setting({
    flag: '--remember-credentials-ms <ms>',
    env: 'REMEMBER_CREDENTIALS_MS',
    doc: 'how long a verified username and password are remembered',
    scope: 'serve',
    parse: wholeNumber('--remember-credentials-ms'),
    default: 5 * 60 * 1000,
  }),
  workers: setting({
    flag: '--workers <n>',
    env: 'WORKERS',
    doc: 'server processes sharing the port: a number, or auto for one per core',
    scope: 'serve',
    default: '1',
  }),
  opsPort: setting<number | undefined>({
    flag: '--ops-port <port>',
    env: 'OPS_PORT',
    doc: 'serve /healthz, /readyz and /metrics on this port only (0 picks one)',
    scope: 'serve',
    parse: wholeNumber('--ops-port'),
    default: undefined,
  }),
  opsHost: setting<string | undefined>({
    flag: '--ops-host <host>',
    env: 'OPS_HOST',
    doc: 'address of the ops listener (default: --host)',
    scope: 'serve',
    default: undefined,
  }),
  shutdownTimeoutMs: setting({
    flag: '--shutdown-timeout-ms <ms>',
    env: 'SHUTDOWN_TIMEOUT_MS',
    doc: 'on SIGTERM/SIGINT, how long requests in flight may take (counted from the signal, drain delay included); the process exits at most 2 s later whatever happens',
    scope: 'serve',
    parse: wholeNumber('--shutdown-timeout-ms'),
    default: 10_000,
  }),
  drainDelayMs: setting({
    flag: '--drain-delay-ms <ms>',
    env: 'DRAIN_DELAY_MS',
    doc: 'on SIGTERM, how long to keep serving (every answer with Connection: close) while /readyz says 503, before the listener closes: time for a load balancer to stop sending; SIGINT skips it',
    scope: 'serve',
    parse: wholeNumber('--drain-delay-ms'),
    default: 2_000,
  }),
  logBufferKb: setting({
    flag: '--log-buffer-kb <kb>',
    env: 'LOG_BUFFER_KB',
    doc: 'most log output kept waiting for a slow stdout, KiB; lines beyond it are dropped and counted (menu_api_log_lines_dropped_total)',
    scope: 'serve',
    parse: wholeNumber('--log-buffer-kb'),
    default: 1_024,
  }),
  snapshotBudgetMb: setting({
    flag: '--snapshot-budget-mb <mb>',
    env: 'SNAPSHOT_BUDGET_MB',
    doc: 'memory for serialized menus per process, MiB (least recently used go)',
    scope: 'serve',
    parse: wholeNumber('--snapshot-budget-mb'),
    default: 256,
  }),
  logLevel: setting({
    flag: '--log-level <level>',
    env: 'LOG_LEVEL',
    doc: 'log level',
    scope: 'serve',
    default: 'info',
  }),
  rateLimitCredential: setting({
    flag: '--rate-limit-credential <rate,burst>',
    env: 'RATE_LIMIT_CREDENTIAL',
    doc: 'requests per second and burst per credential, or off',
    scope: 'serve',
    parse: parseBucket,
    default: DEFAULT_BUCKETS.credential,
    shown: formatBucket(DEFAULT_BUCKETS.credential),
  }),
  rateLimitAddress: setting({
    flag: '--rate-limit-address <rate,burst>',
    env: 'RATE_LIMIT_ADDRESS',
    doc: 'requests per second and burst per client address, or off',
    scope: 'serve',
    parse: parseBucket,
    default: DEFAULT_BUCKETS.address,
    shown: formatBucket(DEFAULT_BUCKETS.address),
  }),
  rateLimitAdminKey: setting({
    flag: '--rate-limit-admin-key <rate,burst>',
    env: 'RATE_LIMIT_ADMIN_KEY',
    doc: 'sync API requests per second and burst per admin key, or off',
    scope: 'serve',
    parse: parseBucket,
    default: DEFAULT_BUCKETS.adminKey,
    shown: formatBucket(DEFAULT_BUCKETS.adminKey),
  }),
  loginFailures: setting<[number, number, number]>({
    flag: '--login-failures <pair,address,username>',
    env: 'LOGIN_FAILURES',
    doc: 'failed logins per window before 429: per username and address, per address, per username',
    scope: 'serve',
    parse: parseLoginFailures,
    default: [10, 50, 200],
    shown: '10,50,200',
  }),
  loginWindow: setting({
    flag: '--login-window <seconds>',
    env: 'LOGIN_WINDOW_SECONDS',
    doc: 'window of the failed-login counters',
    scope: 'serve',
    parse: limitNumber,
    default: 15 * 60,
  }),
  redisUrl: setting<string | undefined>({
    flag: '--redis-url <url>',
    env: 'REDIS_URL',
    doc: 'share rate limits and login failures between processes in Redis',
    scope: 'serve',
    default: undefined,
  }),
  redisPrefix: setting({
    flag: '--redis-prefix <prefix>',
    env: 'REDIS_PREFIX',
    doc: 'prefix of every Redis key (deployments sharing one Redis)',
    scope: 'serve',
    default: 'menu-api:',
  }),
  maxHeaderSize: setting({
    flag: '--max-header-size <bytes>',
    env: 'MAX_HEADER_SIZE',
    doc: 'largest request headers (431 above)',
    scope: 'serve',
    parse: limitNumber,
    default: 16 * 1024,
  }),
  headersTimeoutMs: setting({
    flag: '--headers-timeout-ms <ms>',
    env: 'HEADERS_TIMEOUT_MS',
    doc: 'time for the request headers to arrive',
    scope: 'serve',
    parse: limitNumber,
    default: 10_000,
  }),
  requestTimeoutMs: setting({
    flag: '--request-timeout-ms <ms>',
    env: 'REQUEST_TIMEOUT_MS',
    doc: 'time for the whole request to arrive',
    scope: 'serve',
    parse: limitNumber,
    default: 60_000,
  }),
  keepAliveTimeoutMs: setting({
    flag: '--keep-alive-timeout-ms <ms>',
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    doc: 'idle keep-alive connections close after',
    scope: 'serve',
    parse: limitNumber,
    default: 65_000,
  }),
  connectionTimeoutMs: setting({
    flag: '--connection-timeout-ms <ms>',
    env: 'CONNECTION_TIMEOUT_MS',
    doc: 'a connection without traffic either way closes after',
    scope: 'serve',
    parse: limitNumber,
    default: 120_000,
  }),
  maxConnections: setting({
    flag: '--max-connections <n>',
    env: 'MAX_CONNECTIONS',
    doc: 'open connections per process',
    scope: 'serve',
    parse: limitNumber,
    default: 4096,
  }),
  maxRequestsPerSocket: setting({
    flag: '--max-requests-per-socket <n>',
    env: 'MAX_REQUESTS_PER_SOCKET',
    doc: 'requests per connection before it closes (0: no limit)',
    scope: 'serve',
    parse: limitNumber,
    default: 1000,
  }),
  corsOrigins: setting<string[] | undefined>({
    flag: '--cors-origin <origins>',
    env: 'CORS_ORIGINS',
    doc: 'allow these browser origins (comma list); default: CORS off',
    scope: 'serve',
    parse: parseOrigins,
    default: undefined,
  }),
  trustProxy: setting<TrustProxy>({
    flag: '--trust-proxy <value>',
    env: 'TRUST_PROXY',
    doc: 'believe X-Forwarded-For: false, true, proxy hops, or addresses/CIDRs',
    scope: 'serve',
    parse: parseTrustProxy,
    default: false,
    shown: 'false',
  }),
  webhookKey: setting<string | undefined>({
    flag: '--webhook-key <base64>',
    env: 'WEBHOOK_KEY',
    doc: 'key encrypting webhook signing secrets: 32 random bytes, base64 (prefer the variable); see Webhooks',
    scope: 'global',
    default: undefined,
  }),
  webhookAllowPrivate: setting({
    flag: '--webhook-allow-private',
    env: 'WEBHOOK_ALLOW_PRIVATE',
    doc: 'development only: allow http:// webhook URLs and private, loopback and link-local targets',
    scope: 'global',
    parse: parseBoolean,
    default: false,
  }),
  webhookTimeoutMs: setting({
    flag: '--webhook-timeout-ms <ms>',
    env: 'WEBHOOK_TIMEOUT_MS',
    doc: 'a webhook delivery not answered 2xx within this time is retried',
    scope: 'serve',
    parse: wholeNumber('--webhook-timeout-ms'),
    default: 10_000,
  }),
  webhookRetrySchedule: setting<number[]>({
    flag: '--webhook-retry-schedule <delays>',
    env: 'WEBHOOK_RETRY_SCHEDULE',
    doc: 'delays before each retry of a webhook delivery (±20% jitter); after the last: failed',
    scope: 'serve',
    parse: parseSchedule,
    default: DEFAULT_WEBHOOK_RETRIES,
    shown: DEFAULT_WEBHOOK_RETRIES.map(formatDuration).join(','),
  }),
  webhookDisableAfter: setting({
    flag: '--webhook-disable-after <duration>',
    env: 'WEBHOOK_DISABLE_AFTER',
    doc: 'a webhook whose deliveries all failed for this long is disabled',
    scope: 'serve',
    parse: parseDuration,
    default: 5 * 86_400_000,
    shown: '5d',
  }),
};

export type SettingName = keyof typeof SETTINGS;

/** The value of every setting, typed by the table: what `serve` reads from its options. */
export type SettingValues = {
  [Name in SettingName]: (typeof SETTINGS)[Name] extends Setting<infer T> ? T : never;
};

/** Every setting at its default. */
export function defaultSettings(): SettingValues {
  return Object.fromEntries(
    Object.entries(SETTINGS).map(([name, entry]) => [name, entry.default]),
  ) as SettingValues; // built from the table's own entries, key by key
}
