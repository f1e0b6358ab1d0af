import cluster from 'node:cluster';
import type { FastifyBaseLogger } from 'fastify';
import { type Logger, pino } from 'pino';
import type { SettingValues } from '../../config/settings.js';
import { type ServerConfig, serverConfig } from '../../config.js';
import { DEMO, ensureDemo } from '../../demo/seed.js';
import { MENU_FORMS } from '../../forms/index.js';
import { clusterMetricsText } from '../../http/pipeline/metrics.js';
import { SHUTTING_DOWN, WORKERS_NOT_LISTENING } from '../../http/routes/health.js';
import { tuneHeapForServing } from '../../infra/heap-tuning.js';
import { boundedStdout } from '../../infra/log-destination.js';
import { parseWorkers, runPrimary } from '../../server/cluster.js';
import { buildOpsApp } from '../../server/ops-app.js';
import { startServer } from '../../server/runtime.js';
import { shutdownOnSignals } from '../../server/signals.js';
import { createServices } from '../../services/index.js';
import { describeAddress, openStore } from '../../store/open.js';
import { VERSION } from '../../util/package-files.js';
import { sayCreated } from '../context.js';
import { readableDestination } from '../log-format.js';
import type { OutputOptions } from '../options.js';
import { emit, fail } from '../output.js';
import { startError } from '../start-failure.js';

/**
 * What `serve` prints once it listens, as one block, before any request is logged: where it is, the
 * docs, the health endpoints, the CLI, and on a demo server the requests to try.
 */
function banner(url: string, config: ServerConfig, opsUrl?: string): string {
  const rule = '-'.repeat(78);
  const health = opsUrl ?? url;
  const lines = [
    rule,
    `Dispensary Menu API ${VERSION} listening on ${url}`,
    `  database   ${describeAddress(config.database)}`,
    `  docs       ${url}/docs (OpenAPI document: ${url}/openapi.json)`,
    `  health     ${health}/healthz, ${health}/readyz, metrics ${health}/metrics`,
    '  CLI        npx menu-api --help (dispensaries, credentials, menus, admin keys)',
  ];
  if (config.demo) {
    const formB = `-H 'store: ${DEMO.token}' -H 'username: ${DEMO.username}' -H 'password: ${DEMO.password}'`;
    lines.push(
      '',
      `Demo data is loaded: dispensary "${DEMO.dispensaryName}", credential ${DEMO.username} / ${DEMO.password}, token ${DEMO.token}. Try:`,
      '',
      '  # The menu, Form A: credentials in a JSON body',
      `  curl -s ${url}/menu -H 'content-type: application/json' \\`,
      `    -d '{"username":"${DEMO.username}","password":"${DEMO.password}","collective_token":"${DEMO.token}"}'`,
      '',
      '  # The menu, Form B: credentials in headers',
      `  curl -s ${url}/menu ${formB}`,
      '',
      '  # Store information and live inventory (Form B; Form A posts the same fields)',
      `  curl -s ${url}/store ${formB}`,
      `  curl -s ${url}/inventory ${formB}`,
      ...displayBanner(url),
      '',
      // The console (issue 16): the demo admin key signs in there.
      `  # The console: open ${url}/console and sign in with the admin key ${DEMO.adminKey}`,
      '',
      'The demo secrets are public: never use --demo with real dispensaries.',
    );
  }
  lines.push(rule);
  return lines.join('\n');
}

/** The demo dispensary's public surfaces (issue 17), published at slug DEMO.slug. */
function displayBanner(url: string): string[] {
  return [
    '',
    '  # Its public surfaces (published, slug demo): the menu page, the board, the embed',
    `  ${url}/m/${DEMO.slug}`,
    `  ${url}/board/${DEMO.slug}`,
    `  <div data-menu="${DEMO.slug}"></div><script src="${url}/embed.js" async></script>`,
  ];
}

/** `serve`: the server with the settings given, in this process or (`--workers N`) in N workers. */
export async function serve(settings: SettingValues, options: OutputOptions): Promise<void> {
  const config: ServerConfig = {
    ...serverConfig(settings),
    // Under --workers the primary serves the ops port, with every worker's metrics summed.
    opsServedElsewhere: cluster.isWorker,
  };
  let workers: number;
  try {
    workers = parseWorkers(settings.workers);
  } catch (error) {
    fail(options, error);
    return;
  }
  if (workers > 1 && cluster.isPrimary) {
    await servePrimary(config, workers, {
      ...options,
      logLevel: settings.logLevel,
      logBufferKb: settings.logBufferKb,
    });
    return;
  }
  tuneHeapForServing();
  let server: Awaited<ReturnType<typeof startServer>>;
  const { logger, dropped } = serverLogger(settings.logLevel, settings.logBufferKb);
  try {
    server = await startServer(config, {
      logger,
      droppedLogLines: dropped,
      // Under --workers the primary created it (and said so) before forking.
      onDatabaseCreated: cluster.isWorker ? undefined : sayCreated,
    });
  } catch (error) {
    fail(options, startError(error, config));
    if (cluster.isWorker) process.exit(1);
    return;
  }
  // One shutdown path for a single process and for every worker (src/http/pipeline/drain.ts). A worker
  // whose primary is gone has no one to hand it connections: it stops too.
  shutdownOnSignals(server, {
    timeoutMs: config.shutdownTimeoutMs,
    drainDelayMs: config.drainDelayMs,
    log: logger,
    events: cluster.isWorker ? ['SIGTERM', 'SIGINT', 'disconnect'] : ['SIGTERM', 'SIGINT'],
  });
  if (cluster.isWorker) return;
  emit(
    options,
    {
      url: server.url,
      ops_url: server.opsUrl ?? null,
      database: describeAddress(config.database),
      demo: config.demo ? DEMO : null,
    },
    banner(server.url, config, server.opsUrl),
  );
}

/**
 * The server's log: JSON lines on stdout, written asynchronously: lines that arrive while a write is in
 * flight go out together in the next one, and a slow reader of stdout (a full pipe to a log shipper)
 * delays lines instead of every request; past --log-buffer-kb of backlog lines are dropped and counted
 * (src/infra/log-destination.ts). On a terminal the same lines are made readable. pino flushes what is still buffered when the process exits, without
 * waiting for a reader that is stuck; a crash can lose the last lines.
 */
function serverLogger(level: string, bufferKb: number): { logger: Logger; dropped: () => number } {
  // On a terminal, readable lines (src/cli/log-format.ts), written as the terminal takes them.
  if (process.stdout.isTTY) return { logger: pino({ level }, readableDestination()), dropped: () => 0 };
  const logs = boundedStdout(bufferKb * 1024);
  return { logger: pino({ level }, logs.stream), dropped: logs.dropped };
}

/**
 * `serve --workers N`: migrate and seed once, here, so that workers never race each other to do it,
 * then fork the workers (each runs this same command and takes the `cluster.isWorker` path).
 */
async function servePrimary(
  config: ServerConfig,
  workers: number,
  options: { json?: boolean; logLevel: string; logBufferKb: number },
): Promise<void> {
  const log = serverLogger(options.logLevel, options.logBufferKb).logger;
  try {
    const store = await openStore(config.database, { poolSize: 1, onCreate: sayCreated });
    try {
      if (config.demo) await ensureDemo(createServices(store, MENU_FORMS));
    } finally {
      await store.close();
    }
  } catch (error) {
    fail(options, startError(error, config));
    return;
  }
  let ops: Awaited<ReturnType<typeof startPrimaryOps>> | undefined;
  if (config.opsPort !== null) {
    try {
      ops = await startPrimaryOps(config, log);
    } catch (error) {
      fail(options, startError(error, config));
      return;
    }
  }
  await runPrimary({
    workers,
    // Workers get their own deadline (--shutdown-timeout-ms) and a little more to close the database.
    stopTimeoutMs: config.shutdownTimeoutMs + 5_000,
    log: {
      info: (message) => log.info(message),
      warn: (message) => log.warn(message),
      error: (message) => log.error(message),
    },
    onListening: (port) => {
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      const url = `http://${host}:${port}`;
      ops?.announce();
      emit(
        options,
        {
          url,
          ops_url: ops?.url ?? null,
          database: describeAddress(config.database),
          demo: config.demo ? DEMO : null,
          workers,
        },
        `${banner(url, config, ops?.url)}\n(${workers} worker processes; SIGTERM stops them all)`,
      );
    },
  });
  await ops?.close();
}

/**
 * The ops listener of `serve --workers N --ops-port P`, in the primary: /healthz (the primary is up),
 * /readyz (the workers listen, the database answers and is migrated, no shutdown under way) and
 * /metrics (every worker's registry, summed by prom-client's AggregatorRegistry).
 */
async function startPrimaryOps(config: ServerConfig, log: FastifyBaseLogger) {
  const store = await openStore(config.database, { poolSize: 1 });
  let listening = false;
  let stopping = false;
  const onStop = () => {
    stopping = true;
  };
  process.on('SIGTERM', onStop);
  process.on('SIGINT', onStop);
  try {
    const app = await buildOpsApp({
      logger: log,
      metrics: clusterMetricsText,
      health: {
        ready: async () => {
          if (stopping) throw new Error(SHUTTING_DOWN);
          if (!listening) throw new Error(WORKERS_NOT_LISTENING);
          await store.checkReady();
        },
        reachable: () => true,
      },
    });
    const url = await app.listen({ host: config.opsHost ?? config.host, port: config.opsPort ?? 0 });
    return {
      url,
      announce: () => {
        listening = true;
      },
      close: async () => {
        process.off('SIGTERM', onStop);
        process.off('SIGINT', onStop);
        await app.close();
        await store.close();
      },
    };
  } catch (error) {
    process.off('SIGTERM', onStop);
    process.off('SIGINT', onStop);
    await store.close();
    throw error;
  }
}
