import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';

const draining = new WeakSet<FastifyInstance>();

/**
 * Makes `app.close()` a drain: from the moment it starts, every answer (to a request already in
 * flight, or to one that arrives on a kept-alive connection) carries `Connection: close`, so each
 * connection ends after its current answer and the listener can close. Requests in flight are
 * finished, never refused. Call once per app, before it listens, with `return503OnClosing: false`.
 */
export function drainOnClose(app: FastifyInstance): void {
  app.addHook('preClose', async () => {
    draining.add(app);
  });
  app.addHook('onSend', (request, reply, payload, next) => {
    if (draining.has(app) && request.raw.httpVersionMajor < 2) reply.header('connection', 'close');
    next(null, payload);
  });
}

/**
 * For answers that never finish by themselves (event streams): `end` ends them when the app starts
 * closing, before it waits for its connections, so that a stream never holds a shutdown up until its
 * deadline. Each stream ends with its last event written; clients reconnect elsewhere and resume.
 */
export function endOnClose(app: FastifyInstance, end: () => void): void {
  app.addHook('preClose', async () => {
    end();
  });
}

export function isDraining(app: FastifyInstance): boolean {
  return draining.has(app);
}

export interface CloseReport {
  /** True when the deadline passed and the connections still open were cut. */
  cutOff: boolean;
}

/**
 * Closes a listening app gracefully: no new connections, every request in flight finishes, then the
 * app's onClose hooks run. After `timeoutMs` whatever is still open is cut. Works on an app that
 * never listened (tests with inject) too.
 */
export async function closeGracefully(app: FastifyInstance, timeoutMs: number): Promise<CloseReport> {
  const server = app.server;
  // A connection that turns idle while we wait (its answer sent) would otherwise keep the close
  // waiting for the keep-alive timeout; Node closes idle connections only once, when close starts.
  const reaper = setInterval(() => server.closeIdleConnections?.(), 100);
  reaper.unref();
  let deadline: NodeJS.Timeout | undefined;
  const closed = app.close().then(() => 'closed' as const);
  const expired = new Promise<'expired'>((resolve) => {
    deadline = setTimeout(() => resolve('expired'), timeoutMs);
    deadline.unref();
  });
  try {
    const outcome = await Promise.race([closed, expired]);
    if (outcome === 'expired') {
      server.closeAllConnections?.();
      await closed;
      return { cutOff: true };
    }
    return { cutOff: false };
  } finally {
    clearInterval(reaper);
    clearTimeout(deadline);
  }
}

/** What a running server offers the signal handler: its graceful stop. */
export interface Stoppable {
  shutdown(options?: { timeoutMs?: number }): Promise<CloseReport>;
  /** Its metrics, to say how many requests are still being answered. */
  metrics: Pick<Metrics, 'requestsInFlight'>;
}

export interface ShutdownOptions {
  /** How long requests in flight get before they are cut off, ms. */
  timeoutMs: number;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Events of `process` that start the shutdown: SIGTERM and SIGINT, plus `disconnect` in a cluster worker. */
  events?: readonly string[];
  /** Ends the process; process.exit, replaceable in tests. */
  exit?: (code: number) => void;
}

/**
 * The one shutdown path of `serve`, in a single process and in every cluster worker alike: on the
 * first SIGTERM or SIGINT (or a worker's disconnect), stop accepting, let every request in flight
 * finish (up to the deadline), close the database, exit 0. Repeated signals are logged and ignored:
 * the deadline already bounds the wait (SIGKILL is there for the impatient). Exit 1 only when closing
 * the database fails. Returns the function that starts the shutdown, for callers with other triggers.
 */
export function shutdownOnSignals(server: Stoppable, options: ShutdownOptions): (reason: string) => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const events = options.events ?? ['SIGTERM', 'SIGINT'];
  let started = false;
  const stop = (reason: string) => {
    if (started) {
      options.log.warn(`${reason} during shutdown: still finishing requests in flight`);
      return;
    }
    started = true;
    const count = server.metrics.requestsInFlight();
    void (async () => {
      options.log.info(
        `${reason}: shutting down; finishing ${count} request(s) in flight (deadline ${options.timeoutMs} ms)`,
      );
      try {
        const report = await server.shutdown({ timeoutMs: options.timeoutMs });
        if (report.cutOff) {
          options.log.warn(`requests still in flight after ${options.timeoutMs} ms were cut off`);
        }
        options.log.info('shut down cleanly');
        exit(0);
      } catch (error) {
        options.log.error(`shutdown failed: ${(error as Error).message}`);
        exit(1);
      }
    })();
  };
  for (const event of events) (process as NodeJS.EventEmitter).on(event, () => stop(event));
  return stop;
}
