import cluster from 'node:cluster';
import { Command, Option } from 'commander';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { DEFAULTS, FORM_B_NAMES, type ServerConfig } from '../../config.js';
import { DEMO, ensureDemo } from '../../demo/seed.js';
import type { FormBNames } from '../../forms/form.js';
import { MENU_FORMS } from '../../forms/index.js';
import { parseWorkers, runPrimary } from '../../http/cluster.js';
import { clusterMetricsText } from '../../http/metrics.js';
import { buildOpsApp } from '../../http/ops.js';
import { SHUTTING_DOWN, WORKERS_NOT_LISTENING } from '../../http/routes/health.js';
import { startServer } from '../../http/server.js';
import { shutdownOnSignals } from '../../http/shutdown.js';
import { createServices } from '../../services/index.js';
import { DEFAULT_POOL_SIZE, describeAddress, openStore } from '../../store/open.js';
import { commonOptions, jsonOption } from '../context.js';
import { addLimitOptions, type LimitOptionValues, limitConfig } from '../limit-options.js';
import { emit, fail } from '../output.js';
import { startFailure } from '../start-failure.js';

function positiveInteger(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0)
      throw new Error(`${name} must be a whole number, not "${value}"`);
    return parsed;
  };
}

function banner(url: string, config: ServerConfig): string {
  const lines = [`Dispensary Menu API listening on ${url} (database ${describeAddress(config.database)})`];
  if (config.demo) {
    lines.push(
      '',
      `Demo data is loaded: dispensary "${DEMO.dispensaryName}", credential ${DEMO.username}. Try:`,
      '',
      '  # Form A: credentials in a JSON body',
      `  curl -s ${url}/menu -H 'content-type: application/json' \\`,
      `    -d '{"username":"${DEMO.username}","password":"${DEMO.password}","collective_token":"${DEMO.token}"}'`,
      '',
      '  # Form B: credentials in headers',
      `  curl -s ${url}/menu -H 'store: ${DEMO.token}' -H 'username: ${DEMO.username}' -H 'password: ${DEMO.password}'`,
      '',
      'The demo secrets are public: never use --demo with real dispensaries.',
    );
  }
  return lines.join('\n');
}

export function serveCommand(): Command {
  const command = new Command('serve')
    .description('run the HTTP server (both request forms on one port)')
    .addOption(new Option('--host <host>', 'address to listen on').env('HOST').default(DEFAULTS.host))
    .addOption(
      new Option('--port <port>', 'port to listen on (0 picks a free one)')
        .env('PORT')
        .default(DEFAULTS.port)
        .argParser(positiveInteger('--port')),
    )
    .option('--demo', 'load the demo dispensary, credential and menu (once) and print curl commands')
    .addOption(
      new Option(
        '--form-b-names <names>',
        'Form B spellings: both, table (brand, variants) or sample (brand_name, prices)',
      )
        .choices(FORM_B_NAMES)
        .env('FORM_B_NAMES')
        .default(DEFAULTS.formBNames),
    )
    .addOption(
      new Option('--body-limit <bytes>', 'largest request body accepted, bytes')
        .env('BODY_LIMIT')
        .default(DEFAULTS.bodyLimit)
        .argParser(positiveInteger('--body-limit')),
    )
    .addOption(
      new Option('--change-poll-ms <ms>', 'how often to look for changes made by other processes')
        .default(DEFAULTS.changePollMs)
        .argParser(positiveInteger('--change-poll-ms')),
    )
    .addOption(
      new Option('--workers <n>', 'server processes sharing the port: a number, or auto for one per core')
        .env('WORKERS')
        .default('1'),
    )
    .addOption(
      new Option('--ops-port <port>', 'serve /healthz, /readyz and /metrics on this port only (0 picks one)')
        .env('OPS_PORT')
        .argParser(positiveInteger('--ops-port')),
    )
    .addOption(
      new Option('--ops-host <host>', 'address of the ops listener (default: --host)').env('OPS_HOST'),
    )
    .addOption(
      new Option('--shutdown-timeout-ms <ms>', 'on SIGTERM/SIGINT, how long requests in flight may take')
        .env('SHUTDOWN_TIMEOUT_MS')
        .default(DEFAULTS.shutdownTimeoutMs)
        .argParser(positiveInteger('--shutdown-timeout-ms')),
    )
    .addOption(
      new Option(
        '--snapshot-budget-mb <mb>',
        'memory for serialized menus per process, MiB (least recently used go)',
      )
        .env('SNAPSHOT_BUDGET_MB')
        .default(DEFAULTS.snapshotBudgetBytes / (1024 * 1024))
        .argParser(positiveInteger('--snapshot-budget-mb')),
    )
    .addOption(new Option('--log-level <level>', 'log level').env('LOG_LEVEL').default('info'))
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions<{
        host: string;
        port: number;
        demo?: boolean;
        formBNames: FormBNames;
        bodyLimit: number;
        changePollMs: number;
        logLevel: string;
        workers: string;
        opsPort?: number;
        opsHost?: string;
        shutdownTimeoutMs: number;
        snapshotBudgetMb: number;
      }>(self);
      const config: ServerConfig = {
        ...DEFAULTS,
        database: options.db,
        databasePoolSize: Number(options.dbPoolSize ?? DEFAULT_POOL_SIZE),
        host: options.host,
        port: Number(options.port),
        demo: Boolean(options.demo),
        formBNames: options.formBNames,
        bodyLimit: Number(options.bodyLimit),
        changePollMs: Number(options.changePollMs),
        opsPort: options.opsPort === undefined ? null : Number(options.opsPort),
        opsHost: options.opsHost ?? null,
        shutdownTimeoutMs: Number(options.shutdownTimeoutMs),
        // Under --workers the primary serves the ops port, with every worker's metrics summed.
        opsServedElsewhere: cluster.isWorker,
        snapshotBudgetBytes: Number(options.snapshotBudgetMb) * 1024 * 1024,
        ...limitConfig(commonOptions<LimitOptionValues>(self)),
      };
      let workers: number;
      try {
        workers = parseWorkers(options.workers);
      } catch (error) {
        fail(options, error);
        return;
      }
      if (workers > 1 && cluster.isPrimary) {
        await servePrimary(config, workers, options);
        return;
      }
      let server: Awaited<ReturnType<typeof startServer>>;
      const logger = serverLogger(options.logLevel);
      try {
        server = await startServer(config, { logger });
      } catch (error) {
        fail(options, new Error(`The server could not start: ${startFailure(error, config)}`));
        if (cluster.isWorker) process.exit(1);
        return;
      }
      // One shutdown path for a single process and for every worker (src/http/shutdown.ts). A worker
      // whose primary is gone has no one to hand it connections: it stops too.
      shutdownOnSignals(server, {
        timeoutMs: config.shutdownTimeoutMs,
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
        server.opsUrl
          ? `${banner(server.url, config)}\nHealth, readiness and metrics: ${server.opsUrl}/healthz, /readyz, /metrics`
          : banner(server.url, config),
      );
    });
  // The limits (rate limits, login guard, timeouts, CORS, proxies): src/cli/limit-options.ts.
  return addLimitOptions(command);
}

/**
 * The server's log: JSON lines on stdout, written asynchronously: lines that arrive while a write is in
 * flight go out together in the next one, and a slow reader of stdout (a full pipe to a log shipper)
 * delays lines instead of every request. pino flushes what is still buffered when the process exits;
 * a crash can lose the last lines.
 */
function serverLogger(level: string) {
  return pino({ level }, pino.destination({ dest: 1, sync: false }));
}

/**
 * `serve --workers N`: migrate and seed once, here, so that workers never race each other to do it,
 * then fork the workers (each runs this same command and takes the `cluster.isWorker` path).
 */
async function servePrimary(
  config: ServerConfig,
  workers: number,
  options: { json?: boolean; logLevel: string },
): Promise<void> {
  const log = serverLogger(options.logLevel);
  try {
    const store = await openStore(config.database, { poolSize: 1 });
    try {
      if (config.demo) await ensureDemo(createServices(store, MENU_FORMS));
    } finally {
      await store.close();
    }
  } catch (error) {
    fail(options, new Error(`The server could not start: ${startFailure(error, config)}`));
    return;
  }
  let ops: Awaited<ReturnType<typeof startPrimaryOps>> | undefined;
  if (config.opsPort !== null) {
    try {
      ops = await startPrimaryOps(config, log);
    } catch (error) {
      fail(options, new Error(`The server could not start: ${startFailure(error, config)}`));
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
        `${banner(url, config)}\n(${workers} worker processes; SIGTERM stops them all)${
          ops ? `\nHealth, readiness and metrics: ${ops.url}/healthz, /readyz, /metrics` : ''
        }`,
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
