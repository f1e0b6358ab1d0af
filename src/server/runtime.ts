import cluster from 'node:cluster';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ScryptCost } from '../auth/password.js';
import { DEFAULTS, type ServerConfig } from '../config.js';
import { DEMO, ensureDemo } from '../demo/seed.js';
import { webhookChanges } from '../forms/common/changes.js';
import { FORMS, MENU_FORMS } from '../forms/index.js';
import { type CloseReport, closeGracefully } from '../http/pipeline/drain.js';
import { createMetrics, type Metrics } from '../http/pipeline/metrics.js';
import { createProtection } from '../http/pipeline/protection.js';
import { type HealthChecks, SHUTTING_DOWN } from '../http/routes/health.js';
import { smtpMailer } from '../infra/mailer.js';
import { WebhookClient } from '../infra/webhook-http.js';
import { AccessService } from '../services/access.js';
import { AdminKeyVerifier } from '../services/admin-keys.js';
import { ChangeFeed } from '../services/change-feed.js';
import { ConsoleSessionService } from '../services/console-sessions.js';
import { DeveloperPortal } from '../services/developer-portal.js';
import { IdempotencyService } from '../services/idempotency.js';
import { createServices, type Services } from '../services/index.js';
import { LiveHub } from '../services/live-hub.js';
import { MenuFeed } from '../services/menu-feed.js';
import { loadItems, MenuReader } from '../services/menu-reader.js';
import { MenuSnapshots } from '../services/menu-snapshots.js';
import { OwnPasswordService } from '../services/own-password.js';
import { PasskeyService } from '../services/passkeys.js';
import { PublishedMenus } from '../services/published-menus.js';
import { PublishedStream } from '../services/published-stream.js';
import { SecondFactorService } from '../services/second-factor.js';
import { SpecialScheduler } from '../services/special-scheduler.js';
import { SsoService } from '../services/sso.js';
import { UsageCounter } from '../services/usage.js';
import { WebhookDispatcher } from '../services/webhook-dispatcher.js';
import { webhookKeySource } from '../services/webhook-key.js';
import { openStore } from '../store/open.js';
import { buildApp, type ContractCheck } from './app.js';
import { buildOpsApp } from './ops-app.js';
import { clusterPeerPages } from './peer-pages.js';

export interface Runtime {
  app: FastifyInstance;
  /** The ops listener's app (`/healthz`, `/readyz`, `/metrics`), when config.opsPort is set. */
  ops?: FastifyInstance;
  services: Services;
  feed: ChangeFeed;
  /** The live menu feed (/changes) and its pruning. */
  menuFeed: MenuFeed;
  /** The one reader of new live changes, fanning them out to every /events stream of this process. */
  hub: LiveHub;
  /** Delivers the webhook outbox. */
  dispatcher: WebhookDispatcher;
  /** Records each special's starts and ends in the live feed as they pass. */
  specialScheduler: SpecialScheduler;
  /** The serialized answers kept in memory (menus, store information, inventory). */
  snapshots: MenuSnapshots;
  /** What the app's answers and snapshot reads are counted in (served at /metrics). */
  metrics: Metrics;
  /** The published menus behind the public pages (and their event stream). */
  published: PublishedMenus;
  /**
   * Graceful stop: /readyz turns 503, the listeners stop accepting, requests in flight finish (cut
   * off after `timeoutMs`, default config.shutdownTimeoutMs), then the database is closed.
   */
  shutdown(options?: { timeoutMs?: number; drainDelayMs?: number }): Promise<CloseReport>;
  /** shutdown() with the configured deadline. */
  close(): Promise<void>;
}

export interface RunningServer extends Runtime {
  url: string;
  /** Where /healthz, /readyz and /metrics are, when they have a listener of their own. */
  opsUrl?: string;
}

export interface RuntimeOptions {
  logger: FastifyBaseLogger | false;
  scryptCost?: ScryptCost;
  /** Tests: checks every answer against the OpenAPI document (see AppOptions.contractCheck). */
  contractCheck?: ContractCheck;
  /** Tests: false answers every request through Fastify (see AppOptions.readLane). */
  readLane?: boolean;
  /** Called when the database was a SQLite file that did not exist and was created. */
  onDatabaseCreated?: (path: string) => void;
  /** Log lines the log destination dropped so far (menu_api_log_lines_dropped_total). */
  droppedLogLines?: () => number;
}

/** Opens the database and wires the caches to its change feed; the app is ready but not listening. */
export async function createRuntime(config: ServerConfig, options: RuntimeOptions): Promise<Runtime> {
  const store = await openStore(config.database, {
    poolSize: config.databasePoolSize,
    onCreate: options.onDatabaseCreated,
  });
  const log = options.logger || undefined;
  // Until a read succeeds again every route that needs the database answers 503: say why, once.
  const feed = new ChangeFeed(store, config.changePollMs, {
    failed: (error) =>
      log?.warn({ err: error }, 'reading the change feed failed: answering 503 until a read succeeds'),
    recovered: () => log?.info('reading the change feed works again'),
  });
  const menuFeed = new MenuFeed(store, {
    retentionDays: config.changeRetentionDays ?? DEFAULTS.changeRetentionDays,
  });
  const hub = new LiveHub(store, feed, {
    maxStreams: config.maxStreams ?? DEFAULTS.maxStreams,
    maxStreamsPerCredential: config.maxStreamsPerCredential ?? DEFAULTS.maxStreamsPerCredential,
    heartbeatMs: config.streamHeartbeatMs ?? DEFAULTS.streamHeartbeatMs,
  });
  const usage = new UsageCounter(store);
  const webhookKeys = webhookKeySource(config.webhookKey, config.database, (message) => log?.warn(message));
  const services = createServices(
    store,
    MENU_FORMS,
    () => feed.poll(),
    options.scryptCost,
    {
      keys: webhookKeys,
      allowPrivate: config.webhookAllowPrivate,
    },
    config.smtpUrl ? smtpMailer(config.smtpUrl) : undefined,
    config.integratorApproval,
  );
  const webhookClient = new WebhookClient({ allowPrivate: config.webhookAllowPrivate });
  const metrics = createMetrics();
  // One reader of the menus, for the public forms and for webhooks that carry Form v1's priced items.
  const menus = new MenuReader(store, feed);
  const dispatcher = new WebhookDispatcher(store, feed, {
    send: (request) => webhookClient.send(request),
    // The change exactly as the /changes of the form the webhook chose gives it.
    render: webhookChanges(FORMS, { menus, formBNames: config.formBNames }),
    keys: webhookKeys,
    timeoutMs: config.webhookTimeoutMs,
    retrySchedule: config.webhookRetrySchedule,
    disableAfterMs: config.webhookDisableAfter,
    onAttempt: (outcome, latencyMs) => metrics.recordWebhookAttempt(outcome, latencyMs),
    onDisabled: (id, reason) => {
      metrics.recordWebhookDisabled();
      log?.warn({ webhook: id, reason }, 'webhook disabled');
    },
    onError: (error) => log?.error({ err: error }, 'webhook dispatcher'),
  });
  const specialScheduler = new SpecialScheduler(store, feed, () => feed.poll(), {
    onError: (error) => log?.warn({ err: error }, 'recording a special boundary failed; retried later'),
  });
  const protection = createProtection(config, {
    warn: (message) => log?.warn(message),
    info: (message) => log?.info(message),
  });
  try {
    await protection.start();
    await feed.start();
    await hub.start();
    hub.onError = (error) =>
      log?.warn({ err: error }, 'reading the live feed failed; retried at the next change');
    menuFeed.start((error) => log?.warn({ err: error }, 'pruning the live feed failed; retried later'));
    if (config.demo) await ensureDemo(services);
    dispatcher.start();
    specialScheduler.start();
    usage.start();
    const access = new AccessService(store, feed, {
      rememberCredentialsMs: config.rememberCredentialsMs,
      scryptCost: options.scryptCost,
      guard: protection.guard,
      usage,
    });
    const verifier = new AdminKeyVerifier(store, feed);
    const sessions = new ConsoleSessionService(store, verifier, {
      idleTimeoutMs: (config.consoleIdleTimeout ?? DEFAULTS.consoleIdleTimeout) * 1000,
      lifetimeMs: (config.consoleSessionLifetime ?? DEFAULTS.consoleSessionLifetime) * 1000,
      guard: protection.guard,
      scryptCost: options.scryptCost,
    });
    let stopping = false;
    const health: HealthChecks = {
      // A successful check also re-reads the change feed, so that requests are served again at once.
      ready: async () => {
        if (stopping) throw new Error(SHUTTING_DOWN);
        await store.checkReady();
        await feed.poll();
      },
      reachable: () => feed.reachable,
    };
    const separateOps = config.opsPort !== null && config.opsPort !== undefined;
    // A `serve --workers N` worker: the primary's ops port serves the sum of every worker's metrics.
    if (cluster.isWorker) metrics.shareWithClusterPrimary();
    const snapshots = new MenuSnapshots(
      {
        budgetBytes: config.snapshotBudgetBytes ?? DEFAULTS.snapshotBudgetBytes,
        loadItems: (dispensaryId) => loadItems(store, dispensaryId),
        // The live feed tells which items a change touched: list snapshots re-read just those.
        feed: {
          loadMenu: (dispensaryId) => store.menus.readAt(dispensaryId),
          loadChanges: (dispensaryId, after) => store.menus.readChangedSince(dispensaryId, after),
        },
        onBuild: (event) => log?.debug(event, 'snapshot built'),
        onRead: (event) => metrics.recordSnapshotRead(event),
      },
      feed,
    );
    metrics.trackSnapshotCacheBytes(() => snapshots.usedBytes);
    if (options.droppedLogLines) metrics.trackDroppedLogLines(options.droppedLogLines);
    metrics.trackLiveStreams(() => hub.stats);
    const published = new PublishedMenus(store, feed);
    const app = await buildApp({
      access,
      menus,
      snapshots,
      formBNames: config.formBNames,
      live: { feed: menuFeed, hub, maxBacklog: config.streamMaxBacklog ?? DEFAULTS.streamMaxBacklog },
      peers: clusterPeerPages(),
      bodyLimit: config.bodyLimit,
      logger: options.logger,
      health,
      opsRoutes: !separateOps,
      admin: {
        services,
        verifier,
        idempotency: new IdempotencyService(store),
        bodyLimit: config.adminBodyLimit,
        guard: protection.guard,
        sessions,
        passkeys: new PasskeyService(store, sessions),
        ownPassword: new OwnPasswordService(store, sessions, options.scryptCost),
        secondFactors: new SecondFactorService(store, sessions, webhookKeys, {
          required: config.requireSecondFactor ?? DEFAULTS.requireSecondFactor,
        }),
        usage,
        portal: new DeveloperPortal(services.integrators, services.webhooks, usage, {
          webhookCap: config.integratorWebhookCap ?? DEFAULTS.integratorWebhookCap,
        }),
        consoleUrl: config.publicUrl,
        sso: ssoOf(config, store, sessions),
      },
      protection: protection.options,
      docs: { demo: config.demo ? DEMO : undefined },
      demoSlug: config.demo ? DEMO.slug : undefined,
      display: { published, snapshots, stream: new PublishedStream(published) },
      contractCheck: options.contractCheck,
      readLane: options.readLane,
      metrics,
    });
    const ops =
      separateOps && !config.opsServedElsewhere
        ? await buildOpsApp({
            health,
            logger: options.logger,
            metrics: () => metrics.text(),
            counts: metrics,
          })
        : undefined;
    let stopped: Promise<CloseReport> | undefined;
    const shutdown = (
      timeoutMs = config.shutdownTimeoutMs ?? DEFAULTS.shutdownTimeoutMs,
      drainDelayMs = 0,
    ) => {
      stopped ??= (async () => {
        stopping = true;
        // The ops listener keeps answering (/readyz: 503) until the public one has drained.
        const report = await closeGracefully(app, timeoutMs, drainDelayMs);
        if (ops) await closeGracefully(ops, 1_000);
        await usage.stop();
        specialScheduler.stop();
        hub.stop();
        await menuFeed.stop();
        // Deliveries in flight may finish (each is bounded by the webhook timeout) for a few seconds;
        // the rest are cut off and, their lease running out, sent again by the next process.
        await Promise.race([dispatcher.stop(), delay(Math.min(timeoutMs, 5_000))]);
        webhookClient.close();
        feed.stop();
        await store.close();
        await protection.close();
        return report;
      })();
      return stopped;
    };
    return {
      app,
      ops,
      services,
      feed,
      menuFeed,
      hub,
      dispatcher,
      specialScheduler,
      snapshots,
      metrics,
      published,
      shutdown: (closeOptions) => shutdown(closeOptions?.timeoutMs, closeOptions?.drainDelayMs),
      async close() {
        await shutdown();
      },
    };
  } catch (error) {
    await usage.stop();
    specialScheduler.stop();
    hub.stop();
    await menuFeed.stop();
    await dispatcher.stop();
    webhookClient.close();
    feed.stop();
    await store.close();
    await protection.close();
    throw error;
  }
}

/** Single sign-on, when --oidc-issuer is set (with the client id and secret it needs). */
function ssoOf(
  config: ServerConfig,
  store: SsoStore,
  sessions: ConsoleSessionService,
): SsoService | undefined {
  const { oidcIssuer: issuer, oidcClientId: clientId, oidcClientSecret: clientSecret } = config;
  if (!issuer) return undefined;
  if (!URL.canParse(issuer)) {
    throw new Error(
      `--oidc-issuer must be the provider's issuer URL, such as https://login.example.com (not "${issuer}").`,
    );
  }
  if (!clientId || !clientSecret) {
    throw new Error(
      '--oidc-issuer needs --oidc-client-id and --oidc-client-secret (OIDC_CLIENT_ID, OIDC_CLIENT_SECRET): the client this server is at the provider.',
    );
  }
  return new SsoService(store, sessions, {
    issuer,
    clientId,
    clientSecret,
    allowedDomains: config.oidcAllowedDomains ?? [],
  });
}

type SsoStore = ConstructorParameters<typeof SsoService>[0];

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

export async function startServer(config: ServerConfig, options: RuntimeOptions): Promise<RunningServer> {
  const runtime = await createRuntime(config, options);
  try {
    const url = await runtime.app.listen({ host: config.host, port: config.port });
    const opsUrl = runtime.ops
      ? await runtime.ops.listen({ host: config.opsHost ?? config.host, port: config.opsPort ?? 0 })
      : undefined;
    return { ...runtime, url, opsUrl };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
