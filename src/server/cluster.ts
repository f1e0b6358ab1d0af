import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { relayPeerPages } from './peer-pages.js';

/** `auto` is one worker per core; otherwise a whole number from 1 to 256. */
export function parseWorkers(value: string | number): number {
  if (value === 'auto') return availableParallelism();
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 256) {
    throw new Error(`--workers must be auto or a whole number from 1 to 256, not "${value}"`);
  }
  return parsed;
}

/**
 * The environment workers get beside the primary's. glibc raises its mmap threshold when a large
 * block is freed, so that later blocks as large as scrypt's 16 MiB working memory (each password
 * check, on a libuv pool thread) are kept in the pool threads' arenas, where they fragment and are
 * never given back: a worker's resident memory rose by about 50 MiB in its first minutes under the
 * soak (bench/SOAK.md). A threshold that is set stays fixed: such blocks are mapped on their own and
 * returned when freed. glibc reads it at process start, so workers can be given it, the primary
 * cannot (it checks no passwords); an operator's own value wins. Other C libraries ignore it.
 */
const WORKER_ENV: Readonly<Record<string, string>> =
  process.env.MALLOC_MMAP_THRESHOLD_ === undefined ? { MALLOC_MMAP_THRESHOLD_: String(4 * 1024 * 1024) } : {};

export interface ClusterLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ClusterOptions {
  workers: number;
  log: ClusterLog;
  /** Called once, when every first-generation worker listens, with the shared port. */
  onListening(port: number): void;
  /** How long workers get to finish their requests after SIGTERM before they are killed, ms. */
  stopTimeoutMs?: number;
}

/**
 * The primary process of `serve --workers N`: forks N workers that run the same command and share
 * one listening port (the primary accepts and hands connections round-robin). A worker that dies is
 * replaced, after a delay that grows while workers keep dying, so a crash loop cannot spin. A worker
 * that dies before the cluster ever listened means the server cannot start (a port in use, an
 * unreachable database): then everything stops and the exit code is 1. SIGTERM or SIGINT stops every
 * worker gracefully, then the primary. Resolves when the cluster has stopped.
 */
export function runPrimary(options: ClusterOptions): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    let announced = false;
    const listening = new Set<number>();
    const crashes: number[] = [];

    const workers = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker);
    const fork = () => {
      const worker = cluster.fork(WORKER_ENV);
      options.log.info(`worker ${worker.process.pid} starting`);
    };

    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      options.log.info(
        `${signal}: stopping ${workers().length} ${workers().length === 1 ? 'worker' : 'workers'}`,
      );
      for (const worker of workers()) worker.process.kill('SIGTERM');
      setTimeout(() => {
        for (const worker of workers()) worker.process.kill('SIGKILL');
      }, options.stopTimeoutMs ?? 10_000).unref();
      if (workers().length === 0) finish();
    };
    const finish = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      cluster.off('listening', onListening);
      cluster.off('exit', onExit);
      cluster.off('message', relay);
      resolve();
    };

    const onListening = (worker: Worker, address: { port: number }) => {
      listening.add(worker.id);
      if (!announced && listening.size >= options.workers) {
        announced = true;
        options.onListening(address.port);
      }
    };
    const onExit = (worker: Worker, code: number | null, signal: string | null) => {
      const everListened = listening.delete(worker.id);
      if (stopping) {
        if (workers().length === 0) finish();
        return;
      }
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (!announced && !everListened) {
        options.log.error(`worker ${worker.process.pid} could not start (exit ${how}); stopping`);
        process.exitCode = 1;
        stop('SIGTERM');
        return;
      }
      const now = Date.now();
      while (crashes.length > 0 && crashes[0]! < now - 60_000) crashes.shift();
      crashes.push(now);
      const delay = Math.min(30_000, 100 * 2 ** (crashes.length - 1));
      options.log.warn(`worker ${worker.process.pid} exited (${how}); starting another in ${delay} ms`);
      setTimeout(() => {
        if (!stopping) fork();
      }, delay);
    };

    // Form v1's pages of a menu version that another worker keeps (src/server/peer-pages.ts).
    const relay = relayPeerPages(workers);
    cluster.on('listening', onListening);
    cluster.on('exit', onExit);
    cluster.on('message', relay);
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    for (let index = 0; index < options.workers; index++) fork();
  });
}
