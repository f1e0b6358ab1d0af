import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type PrometheusContentType,
  Registry,
} from 'prom-client';
import type { LiveHubCounts } from '../../services/live-hub.js';
import { AnswerDurations, AnswerTallies, CountTally, reportTallies } from './metric-tallies.js';

/**
 * Prometheus metrics, served at `/metrics` (on the ops port when there is one). Each app has its own
 * `Metrics` (createMetrics()), handed to what records into it: nothing is counted at import time,
 * and two apps of one process (tests) count apart. Only the process metrics (CPU, memory, event loop)
 * are kept once per process, as they describe the process. Under `serve --workers N` each worker
 * shares its metrics with the primary, which serves their sum (clusterMetricsText).
 */

/** In the primary of `serve --workers N`: every worker's metrics, summed (gauges too), as one text. */
let aggregator: AggregatorRegistry<PrometheusContentType> | undefined;

export async function clusterMetricsText(): Promise<{ contentType: string; body: string }> {
  aggregator ??= new AggregatorRegistry();
  return { contentType: aggregator.contentType, body: await aggregator.clusterMetrics() };
}

let processRegistry: Registry | undefined;

/** Process metrics (CPU, resident memory, heap, event loop lag, handles): one collector per process. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The metrics one app records and `/metrics` serves. */
export class Metrics {
  /** This app's metrics (the process metrics are added when scraped). */
  readonly registry = new Registry();

  /**
   * Answers are tallied per label set as plain numbers and handed to prom-client when scraped:
   * prom-client checks and hashes the labels on every call, which cost more than the rest of the
   * counting on the read path (bench/PROFILE.md). The labels are bounded: route patterns, Node's
   * methods, status codes.
   */
  private readonly answers = new AnswerTallies();
  private readonly authFailureTally = new CountTally<'status' | 'reason' | 'surface'>();
  private readonly rateLimitedTally = new CountTally<'limit'>();
  /** Snapshot reads by view: counted on every read (bench/PROFILE.md), so tallied too. */
  private readonly snapshotHitTally = new CountTally<'view'>();
  private readonly snapshotMissTally = new CountTally<'view'>();
  private readonly snapshotBytesTally = new CountTally<'view'>();
  /** Requests received and not yet answered or aborted; read into the gauge when scraped. */
  private inFlight = 0;
  private databaseProbe: (() => boolean) | undefined;
  private snapshotBytesProbe: (() => number) | undefined;
  private droppedLogLinesProbe: (() => number) | undefined;
  private liveStreamsProbe: (() => LiveHubCounts) | undefined;

  /** Every answer, by method, route pattern (`/admin/v1/dispensaries/:id`, never the raw path) and status. */
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpInFlight: Gauge;
  /** 401 and 403 answers; `reason` is the error code (invalid_credentials, invalid_token, forbidden). */
  readonly authFailures: Counter<'status' | 'reason' | 'surface'>;
  /**
   * Requests refused by a rate limit; `limit` names which (address, credential, admin-key, or login for
   * the failed-login guard). Every 429 answer is counted here by `recordAnswer`; `recordRateLimited` is
   * for refusals that are not an HTTP answer of an instrumented app.
   */
  readonly rateLimited: Counter<'limit'>;
  readonly snapshotHits: Counter<'view'>;
  readonly snapshotMisses: Counter<'view'>;
  readonly snapshotCacheBytes: Gauge<'view'>;
  readonly snapshotBytesServed: Counter<'view'>;
  /** 1 while the database answers, 0 while it is unreachable (read when scraped). */
  readonly databaseUp: Gauge;
  /** Log lines dropped because stdout was not read fast enough (read from the destination when scraped). */
  readonly droppedLogLines: Counter;
  /** Open /events streams, and those refused and ended (by limit and reason), read when scraped. */
  readonly liveStreams: Gauge;
  readonly liveStreamsRefused: Gauge<'limit'>;
  readonly liveStreamsEnded: Gauge<'reason'>;
  /** Webhook delivery attempts, by outcome: delivered, retry (to be tried again) or failed (for good). */
  readonly webhookAttempts: Counter<'outcome'>;
  readonly webhookAttemptDuration: Histogram<'outcome'>;
  /** Webhooks turned off because every delivery failed for the configured time. */
  readonly webhooksDisabled: Counter;

  constructor() {
    const registers = [this.registry];
    const counter = <Label extends string>(name: string, help: string, labelNames: readonly Label[]) =>
      new Counter<Label>({ name, help, labelNames, registers });
    /** A counter handed the tally's counts when scraped. */
    const tallied = <Label extends string>(
      name: string,
      help: string,
      labelNames: readonly Label[],
      tally: CountTally<Label>,
    ) =>
      new Counter<Label>({
        name,
        help,
        labelNames,
        registers,
        collect() {
          reportTallies(this, tally.tallies.values());
        },
      });
    const answers = this.answers.tallies;
    const metrics = this;
    this.httpRequests = new Counter({
      name: 'menu_api_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
      collect() {
        reportTallies(this, answers.values());
      },
    });
    // Not a prom-client Histogram (see AnswerDurations), registered as one.
    this.registry.registerMetric(new AnswerDurations(answers) as unknown as Histogram);
    this.httpInFlight = new Gauge({
      name: 'menu_api_http_requests_in_flight',
      help: 'Requests received and not yet answered.',
      registers,
      collect() {
        this.set(metrics.inFlight);
      },
    });
    this.authFailures = tallied(
      'menu_api_auth_failures_total',
      'Refused authentications: 401 (credentials, admin key) and 403 (token, scope), by reason.',
      ['status', 'reason', 'surface'],
      this.authFailureTally,
    );
    this.rateLimited = tallied(
      'menu_api_rate_limited_total',
      'Requests refused with 429 by a rate limit, by the limit that refused them.',
      ['limit'],
      this.rateLimitedTally,
    );
    this.snapshotHits = tallied(
      'menu_api_snapshot_cache_hits_total',
      'Answers served from a kept snapshot, by view (a:menu:active, b:menu:both, store, inventory...).',
      ['view'],
      this.snapshotHitTally,
    );
    this.snapshotMisses = tallied(
      'menu_api_snapshot_cache_misses_total',
      'Answers whose snapshot had to be built first, by view.',
      ['view'],
      this.snapshotMissTally,
    );
    this.snapshotCacheBytes = new Gauge({
      name: 'menu_api_snapshot_cache_bytes',
      help: 'Bytes held by the snapshot cache (view="all": the whole cache, every view and coding).',
      labelNames: ['view'] as const,
      registers,
      collect() {
        if (metrics.snapshotBytesProbe) this.set({ view: 'all' }, metrics.snapshotBytesProbe());
      },
    });
    this.snapshotBytesServed = tallied(
      'menu_api_snapshot_bytes_served_total',
      'Bytes of answers served from snapshots (kept or just built), by view.',
      ['view'],
      this.snapshotBytesTally,
    );
    this.webhookAttempts = counter(
      'menu_api_webhook_attempts_total',
      'Webhook delivery attempts, by outcome: delivered, retry (tried again later) or failed (schedule exhausted).',
      ['outcome'],
    );
    this.webhookAttemptDuration = new Histogram({
      name: 'menu_api_webhook_attempt_duration_seconds',
      help: 'Time from sending a webhook delivery to its answer (or failure), by outcome.',
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.webhooksDisabled = counter(
      'menu_api_webhooks_disabled_total',
      'Webhooks disabled because every delivery failed for --webhook-disable-after.',
      [],
    );
    this.databaseUp = new Gauge({
      name: 'menu_api_database_up',
      help: '1 while the database answers, 0 while it is unreachable.',
      registers,
      // Summed over `serve --workers` (on the primary's ops port) it would count workers: the least says it.
      aggregator: 'min',
      collect() {
        if (metrics.databaseProbe) this.set(metrics.databaseProbe() ? 1 : 0);
      },
    });
    let droppedReported = 0;
    this.droppedLogLines = new Counter({
      name: 'menu_api_log_lines_dropped_total',
      help: 'Log lines dropped because stdout was not read fast enough (see --log-buffer-kb).',
      registers,
      collect() {
        const dropped = metrics.droppedLogLinesProbe?.() ?? 0;
        if (dropped > droppedReported) this.inc(dropped - droppedReported);
        droppedReported = dropped;
      },
    });
    this.liveStreams = new Gauge({
      name: 'menu_api_live_streams',
      help: 'Open /events streams of this process.',
      registers,
      collect() {
        if (metrics.liveStreamsProbe) this.set(metrics.liveStreamsProbe().open);
      },
    });
    // Totals kept by the hub, read when scraped (so gauges, though they only grow).
    const hubTotals = <Label extends 'limit' | 'reason'>(
      name: string,
      help: string,
      label: Label,
      totals: (counts: LiveHubCounts) => Record<string, number>,
    ) =>
      new Gauge<Label>({
        name,
        help,
        labelNames: [label],
        registers,
        collect() {
          const counts = metrics.liveStreamsProbe?.();
          if (!counts) return;
          for (const [value, count] of Object.entries(totals(counts))) {
            // A computed key types as a string index; it is the one label this gauge declares.
            this.set({ [label]: value } as Partial<Record<Label, string>>, count);
          }
        },
      });
    this.liveStreamsRefused = hubTotals(
      'menu_api_live_streams_refused_total',
      'Event streams refused with 429, by the limit that refused them (process, credential).',
      'limit',
      (counts) => counts.refused,
    );
    this.liveStreamsEnded = hubTotals(
      'menu_api_live_streams_ended_total',
      'Event streams ended, by reason: closed (by the client), slow (cut off), revoked, token, removed, shutdown.',
      'reason',
      (counts) => counts.ended,
    );
  }

  // Each method records one event. Labels are short fixed words, never user input.

  /** A request refused with 429 by the limit named `limit` (for example `credential` or `address`). */
  recordRateLimited(limit: string): void {
    this.rateLimitedTally.add(limit, () => ({ limit }));
  }

  /** A 401 or 403 answer. Called by sendError for every such answer; others need not call it. */
  recordAuthFailure(status: number, reason: string, surface: 'public' | 'admin'): void {
    this.authFailureTally.add(`${status} ${reason} ${surface}`, () => ({
      status: String(status),
      reason,
      surface,
    }));
  }

  /** One webhook delivery attempt and how long it took. */
  recordWebhookAttempt(outcome: 'delivered' | 'retry' | 'failed', latencyMs: number): void {
    this.webhookAttempts.inc({ outcome });
    this.webhookAttemptDuration.observe({ outcome }, latencyMs / 1000);
  }

  recordWebhookDisabled(): void {
    this.webhooksDisabled.inc();
  }

  recordSnapshotHit(view = 'all'): void {
    this.snapshotHitTally.add(view, () => ({ view }));
  }

  recordSnapshotMiss(view = 'all'): void {
    this.snapshotMissTally.add(view, () => ({ view }));
  }

  /** The bytes the snapshot cache holds now, for one view or (`all`) the whole cache. */
  setSnapshotCacheBytes(bytes: number, view = 'all'): void {
    this.snapshotCacheBytes.set({ view }, bytes);
  }

  recordSnapshotBytesServed(bytes: number, view = 'all'): void {
    this.snapshotBytesTally.add(view, () => ({ view }), bytes);
  }

  /** An answer Node's parser gave before any route saw the request (400, 408, 431). */
  recordUnparsedRequest(status: number): void {
    this.tallyAnswer('unknown', 'unparsed', status);
  }

  /** The snapshot cache's size, read at every scrape (`menu_api_snapshot_cache_bytes{view="all"}`). */
  trackSnapshotCacheBytes(probe: () => number): void {
    this.snapshotBytesProbe = probe;
  }

  /** The log destination's count of dropped lines, read at every scrape (`menu_api_log_lines_dropped_total`). */
  trackDroppedLogLines(probe: () => number): void {
    this.droppedLogLinesProbe = probe;
  }

  /** The live hub's counts, read at every scrape (`menu_api_live_streams*`). */
  trackLiveStreams(probe: () => LiveHubCounts): void {
    this.liveStreamsProbe = probe;
  }

  /** Whether the database answers, read at every scrape (`menu_api_database_up`). */
  trackDatabase(reachable: () => boolean): void {
    this.databaseProbe = reachable;
  }

  /** A snapshot read as MenuSnapshots reports it (`onRead`). View names are a fixed, short set. */
  recordSnapshotRead(event: { view: string; hit: boolean; bytes: number }): void {
    if (event.hit) this.recordSnapshotHit(event.view);
    else this.recordSnapshotMiss(event.view);
    this.recordSnapshotBytesServed(event.bytes, event.view);
  }

  /** Requests received and not yet answered or aborted. */
  requestsInFlight(): number {
    return this.inFlight;
  }

  /** What `/metrics` sends: this app's metrics and the process's, in the text format. */
  async text(): Promise<{ contentType: string; body: string }> {
    const registry = Registry.merge([processMetrics(), this.registry]);
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  /** In a `serve --workers N` worker: answers the primary's scrapes with these metrics. Once per process. */
  shareWithClusterPrimary(): void {
    AggregatorRegistry.setRegistries([processMetrics(), this.registry]);
    // Its constructor starts answering the primary's requests for metrics.
    new AggregatorRegistry();
  }

  /** Counts one answer, and times it into the latency histogram when `seconds` is given. */
  tallyAnswer(method: string, route: string, status: number, seconds?: number): void {
    this.answers.add(method, route, status, seconds);
  }

  /** Called for each request received and each answered or aborted (src/http/pipeline/answer-record.ts). */
  countInFlight(change: 1 | -1): void {
    this.inFlight += change;
  }
}

export function createMetrics(): Metrics {
  return new Metrics();
}
