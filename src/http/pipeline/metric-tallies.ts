import type { Counter } from 'prom-client';

/**
 * The plain-number tallies behind the request metrics (src/http/pipeline/metrics.ts): prom-client checks and
 * hashes the labels on every call, which cost more than the rest of the counting on the read path
 * (bench/PROFILE.md), so answers and other frequent events are counted here and handed to prom-client
 * when scraped.
 */

export interface AnswerLabels {
  method: string;
  route: string;
  status: string;
}

/** A count per label set, kept as a plain number and handed to a prom-client counter when scraped. */
export interface Tally<Labels> {
  /** One object per label set, handed to prom-client as it is. */
  labels: Labels;
  count: number;
  /** How much of `count` the counter has been given. */
  reported: number;
}

/** The bounds of menu_api_http_request_duration_seconds, in seconds. */
const DURATION_BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface AnswerTally extends Tally<AnswerLabels> {
  /** Answers timed into each bucket of DURATION_BOUNDS (not cumulative); the last: above every bound. */
  durations: Float64Array;
  /** Answers timed, and their total seconds. */
  timed: number;
  seconds: number;
}

/** Gives `counter` what the tallies counted since the last scrape (from its `collect`). */
export function reportTallies<Label extends string>(
  counter: Counter<Label>,
  tallies: Iterable<Tally<Partial<Record<Label, string | number>>>>,
): void {
  for (const tally of tallies) {
    if (tally.count === tally.reported) continue;
    counter.inc(tally.labels, tally.count - tally.reported);
    tally.reported = tally.count;
  }
}

/**
 * Zero as V8 keeps a number that is not a small integer. A count that starts at `0` is kept as a small
 * integer until it passes 2^31, which the bytes served do within two seconds of full load; V8 then
 * changes how every tally stores its count, and throws away each compiled function that counts into
 * one, the read path's among them (bench/PROFILE.md, round thirty-five). Starting at `-0`, a double,
 * a count is a double from the first.
 */
const DOUBLE_ZERO = -0;

/** Counts under a few fixed label sets, without prom-client's label checks and hashing per count. */
export class CountTally<Label extends string> {
  readonly tallies = new Map<string, Tally<Record<Label, string>>>();

  add(key: string, labels: () => Record<Label, string>, by = 1): void {
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = { labels: labels(), count: DOUBLE_ZERO, reported: DOUBLE_ZERO };
      this.tallies.set(key, tally);
    }
    tally.count += by;
  }
}

/**
 * menu_api_http_request_duration_seconds, read from the answer tallies when scraped: a prom-client
 * Histogram checks and hashes the labels and finds the bucket on every `observe`, the largest part of
 * the metrics' cost per request (bench/PROFILE.md). Same name, type, buckets and text as the Histogram.
 */
export class AnswerDurations {
  readonly name = 'menu_api_http_request_duration_seconds';
  readonly help =
    'Time from the request arriving to the answer being sent, by method, route pattern and status.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(private readonly answers: Map<string, AnswerTally>) {}

  /** What the registry writes as text: buckets labelled `le`, the answer's labels shared. */
  async getForPromString() {
    const values: {
      labels: Record<string, string | number>;
      sharedLabels: AnswerLabels;
      value: number;
      metricName: string;
    }[] = [];
    for (const tally of this.answers.values()) {
      if (tally.timed === 0) continue;
      const sharedLabels = tally.labels;
      let cumulative = 0;
      DURATION_BOUNDS.forEach((le, index) => {
        cumulative += tally.durations[index]!;
        values.push({ labels: { le }, sharedLabels, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels, value: tally.timed, metricName: `${this.name}_bucket` },
        { labels: {}, sharedLabels, value: tally.seconds, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels, value: tally.timed, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The same values with every label in `labels` (what the cluster aggregator and JSON readers use). */
  async get() {
    const metric = await this.getForPromString();
    return {
      ...metric,
      values: metric.values.map(({ labels, sharedLabels, value, metricName }) => ({
        labels: { ...sharedLabels, ...labels },
        value,
        metricName,
      })),
    };
  }

  reset(): void {
    for (const tally of this.answers.values()) {
      tally.durations.fill(0);
      tally.timed = 0;
      tally.seconds = 0;
    }
  }
}

/** The answers counted, per method, status and route, with their durations. */
export class AnswerTallies {
  readonly tallies = new Map<string, AnswerTally>();

  add(method: string, route: string, status: number, seconds?: number): void {
    const key = `${method} ${status} ${route}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = {
        labels: { method, route, status: String(status) },
        count: 0,
        reported: 0,
        durations: new Float64Array(DURATION_BOUNDS.length + 1),
        timed: 0,
        seconds: 0,
      };
      this.tallies.set(key, tally);
    }
    tally.count++;
    if (seconds === undefined) return;
    let bucket = 0;
    while (bucket < DURATION_BOUNDS.length && seconds > DURATION_BOUNDS[bucket]!) bucket++;
    tally.durations[bucket]!++;
    tally.timed++;
    tally.seconds += seconds;
  }
}
