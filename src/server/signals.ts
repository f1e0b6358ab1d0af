import type { FastifyBaseLogger } from 'fastify';
import type { CloseReport } from '../http/pipeline/drain.js';
import type { Metrics } from '../http/pipeline/metrics.js';

/** What a running server offers the signal handler: its graceful stop. */
export interface Stoppable {
  shutdown(options?: { timeoutMs?: number; drainDelayMs?: number }): Promise<CloseReport>;
  /** Its metrics, to say how many requests are still being answered. */
  metrics: Pick<Metrics, 'requestsInFlight'>;
}

/** How long after the shutdown deadline the process is ended whatever it is still doing, ms. */
export const HARD_EXIT_MARGIN_MS = 2_000;

export interface ShutdownOptions {
  /** How long requests in flight get before they are cut off, ms, counted from the signal. */
  timeoutMs: number;
  /** On SIGTERM only: how long to keep serving while /readyz says 503 (see closeGracefully), ms. */
  drainDelayMs?: number;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Events of `process` that start the shutdown: SIGTERM and SIGINT, plus `disconnect` in a cluster worker. */
  events?: readonly string[];
  /** Ends the process; process.exit, replaceable in tests. */
  exit?: (code: number) => void;
}

/**
 * The one shutdown path of `serve`, in a single process and in every cluster worker alike: on the
 * first SIGTERM or SIGINT (or a worker's disconnect), keep serving for the drain delay (SIGTERM only:
 * the signal of an orchestrator; SIGINT is someone at a terminal), stop accepting, let every request
 * in flight finish (up to the deadline), close the database, exit 0. Repeated signals are logged and
 * ignored: the deadline already bounds the wait. Exit 1 only when closing the database fails, or when
 * the process is still alive HARD_EXIT_MARGIN_MS after the deadline (a database close or a log
 * destination that hangs): the deadline bounds the process's life, not only the requests'.
 * Returns the function that starts the shutdown, for callers with other triggers.
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
    const hardExit = setTimeout(() => {
      options.log.error(
        `still running ${HARD_EXIT_MARGIN_MS} ms after the ${options.timeoutMs} ms shutdown deadline: exiting now`,
      );
      exit(1);
    }, options.timeoutMs + HARD_EXIT_MARGIN_MS);
    hardExit.unref();
    const drainDelayMs = reason === 'SIGTERM' ? Math.min(options.drainDelayMs ?? 0, options.timeoutMs) : 0;
    const count = server.metrics.requestsInFlight();
    void (async () => {
      options.log.info(
        `${reason}: shutting down; ${drainDelayMs > 0 ? `serving ${drainDelayMs} ms more with /readyz at 503, then ` : ''}finishing ${count} ${count === 1 ? 'request' : 'requests'} in flight (deadline ${options.timeoutMs} ms)`,
      );
      try {
        const report = await server.shutdown({ timeoutMs: options.timeoutMs, drainDelayMs });
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
