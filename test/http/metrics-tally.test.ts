import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/pipeline/metrics.js';

const NAME = 'menu_api_http_request_duration_seconds';

/** The lines of one metric family in a Prometheus text. */
const family = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(NAME) || line.includes(` ${NAME} `))
    .join('\n');

describe('the request latency histogram, tallied per answer', () => {
  it('writes what a prom-client Histogram observing the same answers writes, in text and as JSON', async () => {
    const metrics = createMetrics();
    const reference = new Registry();
    const histogram = new Histogram({
      name: NAME,
      help: 'Time from the request arriving to the answer being sent, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [reference],
    });
    // On the bounds, between them, above the last, for two label sets.
    const answers: [string, string, number, number][] = [
      ['GET', '/menu', 200, 0.0004],
      ['GET', '/menu', 200, 0.001],
      ['GET', '/menu', 200, 0.0031],
      ['GET', '/menu', 304, 0.01],
      ['POST', '/menu', 403, 12],
      ['GET', '/menu', 200, 0.7],
    ];
    for (const [method, route, status, seconds] of answers) {
      metrics.tallyAnswer(method, route, status, seconds);
      histogram.observe({ method, route, status: String(status) }, seconds);
    }
    // Counted, not timed (an answer from Node's parser): in the request counter only.
    metrics.recordUnparsedRequest(431);

    expect(family(await metrics.registry.metrics())).toBe(family(await reference.metrics()));
    // Exemplars are not used here (prom-client lists an empty one per value).
    const json = async (registry: Registry) => {
      const metric = (await registry.getMetricsAsJSON()).find((found) => found.name === NAME)!;
      return { ...metric, values: metric.values.map(({ labels, value }) => ({ labels, value })) };
    };
    expect(await json(metrics.registry)).toEqual(await json(reference));
  });
});
