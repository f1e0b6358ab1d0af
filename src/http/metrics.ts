import cluster from 'node:cluster';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type PrometheusContentType,
  Registry,
} from 'prom-client';

/**
 * Prometheus metrics of this process, served at `/metrics` (on the ops port when there is one).
 * The metrics live in one registry per process, so that any module can record into them without
 * being handed an app: the rate limiter calls `recordRateLimited`, the snapshot cache calls
 * `recordSnapshotHit` and friends. Under `serve --workers N` each worker has its own registry.
 */
export const registry = new Registry();

// A `serve --workers N` worker answers the primary's scrapes with this registry; the primary serves
// the sum of all workers on the ops port (clusterMetricsText).
if (cluster.isWorker) {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
}

let aggregator: AggregatorRegistry<PrometheusContentType> | undefined;

/** In the primary of `serve --workers N`: every worker's metrics, summed (gauges too), as one text. */
export async function clusterMetricsText(): Promise<{ contentType: string; body: string }> {
  aggregator ??= new AggregatorRegistry();
  return { contentType: aggregator.contentType, body: await aggregator.clusterMetrics() };
}

interface AnswerLabels {
  method: string;
  route: string;
  status: string;
}

interface AnswerTally {
  /** One object per label set, handed to prom-client as it is on every request. */
  labels: AnswerLabels;
  count: number;
  /** How much of `count` the counter has been given. */
  reported: number;
}

/**
 * Answers are tallied per label set as plain numbers and handed to prom-client when scraped:
 * prom-client checks and hashes the labels on every call, which cost more than the rest of the
 * counting on the read path (bench/PROFILE.md). The labels are bounded: route patterns, Node's
 * methods, status codes.
 */
const answers = new Map<string, AnswerTally>();

function tallyAnswer(method: string, route: string, status: number): AnswerLabels {
  const key = `${method} ${status} ${route}`;
  let tally = answers.get(key);
  if (!tally) {
    tally = { labels: { method, route, status: String(status) }, count: 0, reported: 0 };
    answers.set(key, tally);
  }
  tally.count++;
  return tally.labels;
}

/** Every answer, by method, route pattern (`/admin/v1/dispensaries/:id`, never the raw path) and status. */
export const httpRequests = new Counter({
  name: 'menu_api_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
  collect() {
    for (const tally of answers.values()) {
      if (tally.count === tally.reported) continue;
      this.inc(tally.labels, tally.count - tally.reported);
      tally.reported = tally.count;
    }
  },
});

export const httpDuration = new Histogram({
  name: 'menu_api_http_request_duration_seconds',
  help: 'Time from the request arriving to the answer being sent, by method, route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** Requests received and not yet answered or aborted; read into the gauge when scraped. */
let requestsInFlight = 0;

export const httpInFlight = new Gauge({
  name: 'menu_api_http_requests_in_flight',
  help: 'Requests received and not yet answered.',
  registers: [registry],
  collect() {
    this.set(requestsInFlight);
  },
});

/** 401 and 403 answers; `reason` is the error code (invalid_credentials, invalid_token, forbidden). */
export const authFailures = new Counter({
  name: 'menu_api_auth_failures_total',
  help: 'Refused authentications: 401 (credentials, admin key) and 403 (token, scope), by reason.',
  labelNames: ['status', 'reason', 'surface'] as const,
  registers: [registry],
});

/**
 * Requests refused by a rate limit; `limit` names which (address, credential, admin-key, or login for
 * the failed-login guard). Every 429 answer is counted here by `instrument`; `recordRateLimited` is for
 * refusals that are not an HTTP answer of an instrumented app.
 */
export const rateLimited = new Counter({
  name: 'menu_api_rate_limited_total',
  help: 'Requests refused with 429 by a rate limit, by the limit that refused them.',
  labelNames: ['limit'] as const,
  registers: [registry],
});

export const snapshotHits = new Counter({
  name: 'menu_api_snapshot_cache_hits_total',
  help: 'Answers served from a kept snapshot, by view (a:menu:active, b:menu:both, store, inventory...).',
  labelNames: ['view'] as const,
  registers: [registry],
});

export const snapshotMisses = new Counter({
  name: 'menu_api_snapshot_cache_misses_total',
  help: 'Answers whose snapshot had to be built first, by view.',
  labelNames: ['view'] as const,
  registers: [registry],
});

export const snapshotCacheBytes = new Gauge({
  name: 'menu_api_snapshot_cache_bytes',
  help: 'Bytes held by the snapshot cache (view="all": the whole cache, every view and coding).',
  labelNames: ['view'] as const,
  registers: [registry],
  collect() {
    if (snapshotBytesProbe) this.set({ view: 'all' }, snapshotBytesProbe());
  },
});

export const snapshotBytesServed = new Counter({
  name: 'menu_api_snapshot_bytes_served_total',
  help: 'Bytes of answers served from snapshots (kept or just built), by view.',
  labelNames: ['view'] as const,
  registers: [registry],
});

/** 1 while the database answers, 0 while it is unreachable (read when scraped). */
export const databaseUp = new Gauge({
  name: 'menu_api_database_up',
  help: '1 while the database answers, 0 while it is unreachable.',
  registers: [registry],
  // Summed over `serve --workers` (on the primary's ops port) it would count workers: the least says it.
  aggregator: 'min',
  collect() {
    if (databaseProbe) this.set(databaseProbe() ? 1 : 0);
  },
});
let databaseProbe: (() => boolean) | undefined;

let defaultsCollected = false;

/** Process metrics (CPU, resident memory, heap, event loop lag, handles), once per process. */
function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: registry });
}

// Functions for other modules: each records one event. Labels are short fixed words, never user input.

/** A request refused with 429 by the limit named `limit` (for example `credential` or `address`). */
export function recordRateLimited(limit: string): void {
  rateLimited.inc({ limit });
}

/** A 401 or 403 answer. Called by sendError for every such answer; others need not call it. */
export function recordAuthFailure(status: number, reason: string, surface: 'public' | 'admin'): void {
  authFailures.inc({ status: String(status), reason, surface });
}

export function recordSnapshotHit(view = 'all'): void {
  snapshotHits.inc({ view });
}

export function recordSnapshotMiss(view = 'all'): void {
  snapshotMisses.inc({ view });
}

/** The bytes the snapshot cache holds now, for one view or (`all`) the whole cache. */
export function setSnapshotCacheBytes(bytes: number, view = 'all'): void {
  snapshotCacheBytes.set({ view }, bytes);
}

export function recordSnapshotBytesServed(bytes: number, view = 'all'): void {
  snapshotBytesServed.inc({ view }, bytes);
}

/** An answer Node's parser gave before any route saw the request (400, 408, 431). */
export function recordUnparsedRequest(status: number): void {
  tallyAnswer('unknown', 'unparsed', status);
}

let snapshotBytesProbe: (() => number) | undefined;

/** The snapshot cache's size, read at every scrape (`menu_api_snapshot_cache_bytes{view="all"}`). */
export function trackSnapshotCacheBytes(probe: () => number): void {
  snapshotBytesProbe = probe;
}

/** A snapshot read as MenuSnapshots reports it (`onRead`). View names are a fixed, short set. */
export function recordSnapshotRead(event: { view: string; hit: boolean; bytes: number }): void {
  if (event.hit) recordSnapshotHit(event.view);
  else recordSnapshotMiss(event.view);
  recordSnapshotBytesServed(event.bytes, event.view);
}

/** What `/metrics` sends: the text format, and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** The label of a request's route: its pattern, or `unmatched` (so random paths cannot flood the labels). */
export function routeLabel(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

/** The bucket that refused a 429: the rate limiter's policy name, else the failed-login guard. */
function refusingLimit(request: FastifyRequest): string {
  const noted = request.rateLimits ?? [];
  return noted.find((limit) => !limit.decision.allowed)?.policy.name ?? 'login';
}

/**
 * Counts every request an app answers. `reachable` feeds `menu_api_database_up`. Safe to call for
 * several apps of one process (tests): they share the registry. The hooks are synchronous callbacks:
 * they run on every request, and an async hook costs a promise and a microtask each (bench/PROFILE.md).
 */
export function instrument(app: FastifyInstance, reachable?: () => boolean): void {
  collectProcessMetrics();
  if (reachable) databaseProbe = reachable;
  app.addHook('onRequest', (request, _reply, next) => {
    request.inFlight = true;
    requestsInFlight++;
    next();
  });
  const done = (request: FastifyRequest) => {
    if (!request.inFlight) return;
    request.inFlight = false;
    requestsInFlight--;
  };
  app.addHook('onResponse', (request, reply, next) => {
    done(request);
    const labels = tallyAnswer(request.method, routeLabel(request), reply.statusCode);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) recordRateLimited(refusingLimit(request));
    next();
  });
  app.addHook('onRequestAbort', (request, next) => {
    done(request);
    next();
  });
}

export interface MetricsRouteOptions {
  /** Where the text comes from: this process's registry unless told otherwise (the cluster primary). */
  source?: () => Promise<{ contentType: string; body: string }>;
}

/** `GET /metrics`: Prometheus text format, no credentials (put it on the ops port in production). */
export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, options) => {
  const source = options.source ?? metricsText;
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics of this process',
        description: 'Prometheus text exposition format (text/plain; version=0.0.4).',
        tags: ['Operations'],
        response: {
          200: {
            description: 'The metrics, in Prometheus text format.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await source();
      return reply.type(contentType).send(body);
    },
  );
};
