import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { adminKey, UNLIMITED } from '../helpers/admin.js';
import { expectError, formABody, formBHeaders } from '../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';

/** The value of one sample of the Prometheus text, 0 when absent. Labels are matched exactly, in order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const rendered = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(',');
  const prefix = rendered ? `${name}{${rendered}} ` : `${name} `;
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line ? Number(line.slice(prefix.length)) : 0;
}

async function scrape(app: FastifyInstance): Promise<string> {
  const response = await app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

describe('health, readiness and metrics on the public port (no --ops-port)', () => {
  let runtime: TestRuntime;
  afterEach(async () => {
    await runtime?.close();
  });

  it('/healthz and /readyz answer without credentials', async () => {
    runtime = await testRuntime({ config: UNLIMITED });
    const health = await runtime.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await runtime.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    expect(runtime.ops).toBeUndefined();
  });

  it('each app counts into metrics of its own: two apps of one process count apart', async () => {
    runtime = await testRuntime({ config: UNLIMITED });
    const other = await testRuntime({ config: UNLIMITED });
    try {
      await other.app.inject({ method: 'GET', url: '/no/such/path' });
      const labels = { method: 'GET', route: 'unmatched', status: '404' };
      expect(sample(await scrape(other.app), 'menu_api_http_requests_total', labels)).toBe(1);
      expect(sample(await scrape(runtime.app), 'menu_api_http_requests_total', labels)).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('/metrics counts requests by route pattern and status, with a latency histogram', async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU, config: UNLIMITED });
    const { app, seed } = runtime;
    const before = await scrape(app);
    const labels = { method: 'GET', route: '/menu', status: '200' };
    await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    await app.inject({ method: 'GET', url: '/no/such/path/123' });
    runtime.metrics.recordUnparsedRequest(431);
    const after = await scrape(app);
    const unparsed = { method: 'unknown', route: 'unparsed', status: '431' };
    expect(sample(after, 'menu_api_http_requests_total', unparsed)).toBe(
      sample(before, 'menu_api_http_requests_total', unparsed) + 1,
    );
    // Counted once: a second scrape hands prom-client nothing new.
    expect(sample(await scrape(app), 'menu_api_http_requests_total', labels)).toBe(
      sample(after, 'menu_api_http_requests_total', labels),
    );
    expect(sample(after, 'menu_api_http_requests_total', labels)).toBe(
      sample(before, 'menu_api_http_requests_total', labels) + 2,
    );
    expect(sample(after, 'menu_api_http_request_duration_seconds_count', labels)).toBe(
      sample(before, 'menu_api_http_request_duration_seconds_count', labels) + 2,
    );
    expect(after).toContain(
      'menu_api_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/menu",status="200"}',
    );
    // Unknown paths share one label, so random URLs cannot grow the series without bound.
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    expect(sample(after, 'menu_api_http_requests_total', unmatched)).toBe(
      sample(before, 'menu_api_http_requests_total', unmatched) + 1,
    );
    expect(after).not.toContain('/no/such/path');
    expect(sample(after, 'menu_api_http_requests_in_flight')).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'menu_api_database_up')).toBe(1);
    expect(after).toContain('process_resident_memory_bytes');
  });

  it('counts auth failures by status and reason, public and admin', async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU, config: UNLIMITED });
    const { app, seed } = runtime;
    const before = await scrape(app);
    const wrongPassword = await app.inject({
      method: 'POST',
      url: '/menu',
      payload: { ...formABody(seed), password: 'wrong' },
    });
    expectError(wrongPassword, 401, 'invalid_credentials');
    const wrongToken = await app.inject({
      method: 'GET',
      url: '/menu',
      headers: { ...formBHeaders(seed), store: 'not-a-token' },
    });
    expectError(wrongToken, 403, 'invalid_token');
    expectError(
      await app.inject({ method: 'GET', url: '/admin/v1/dispensaries' }),
      401,
      'invalid_credentials',
    );
    const other = await runtime.services.dispensaries.create('Another Collective');
    const scoped = await adminKey(runtime, `dispensary:${other.id}`);
    expectError(await scoped.call('GET', `/dispensaries/${seed.dispensaryId}`), 403, 'forbidden');

    const after = await scrape(app);
    const delta = (labels: Record<string, string>) =>
      sample(after, 'menu_api_auth_failures_total', labels) -
      sample(before, 'menu_api_auth_failures_total', labels);
    expect(delta({ status: '401', reason: 'invalid_credentials', surface: 'public' })).toBe(1);
    expect(delta({ status: '403', reason: 'invalid_token', surface: 'public' })).toBe(1);
    expect(delta({ status: '401', reason: 'invalid_credentials', surface: 'admin' })).toBe(1);
    expect(delta({ status: '403', reason: 'forbidden', surface: 'admin' })).toBe(1);
    // Nothing secret ends up in a label.
    expect(after).not.toContain(seed.password);
    expect(after).not.toContain(seed.token);
  });

  it('exports named metrics that the rate limiter and the snapshot cache record into', async () => {
    runtime = await testRuntime({ config: UNLIMITED });
    const before = await scrape(runtime.app);
    runtime.metrics.recordRateLimited('credential');
    runtime.metrics.recordRateLimited('credential');
    runtime.metrics.recordSnapshotHit('test:view');
    runtime.metrics.recordSnapshotMiss('test:view');
    runtime.metrics.setSnapshotCacheBytes(12_345, 'test:view');
    runtime.metrics.recordSnapshotBytesServed(500, 'test:view');
    const after = await scrape(runtime.app);
    const delta = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta('menu_api_rate_limited_total', { limit: 'credential' })).toBe(2);
    expect(delta('menu_api_snapshot_cache_hits_total', { view: 'test:view' })).toBe(1);
    expect(delta('menu_api_snapshot_cache_misses_total', { view: 'test:view' })).toBe(1);
    expect(sample(after, 'menu_api_snapshot_cache_bytes', { view: 'test:view' })).toBe(12_345);
    expect(delta('menu_api_snapshot_bytes_served_total', { view: 'test:view' })).toBe(500);
  });

  it('counts every 429 by the limit that refused it', async () => {
    runtime = await testRuntime({
      menu: SAMPLE_MENU,
      config: { ...UNLIMITED, rateLimitAddress: { ratePerSecond: 0.001, burst: 2 } },
    });
    const { app, seed } = runtime;
    const before = await scrape(app);
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++) {
      statuses.push(
        (await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) })).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    const after = await scrape(app);
    expect(
      sample(after, 'menu_api_rate_limited_total', { limit: 'address' }) -
        sample(before, 'menu_api_rate_limited_total', { limit: 'address' }),
    ).toBe(2);
  });

  it('counts snapshot hits, misses and bytes of the real menu reads, and the cache size', async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU, config: UNLIMITED });
    const { app, seed } = runtime;
    const before = await scrape(app);
    const first = await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    const second = await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    const after = await scrape(app);
    const view = { view: 'b:menu:both' };
    const delta = (name: string) => sample(after, name, view) - sample(before, name, view);
    expect(delta('menu_api_snapshot_cache_misses_total')).toBe(1);
    expect(delta('menu_api_snapshot_cache_hits_total')).toBe(1);
    expect(delta('menu_api_snapshot_bytes_served_total')).toBe(
      first.rawPayload.length + second.rawPayload.length,
    );
    expect(sample(after, 'menu_api_snapshot_cache_bytes', { view: 'all' })).toBeGreaterThan(0);
  });

  it('a 503 for an unreachable database carries Retry-After and the JSON error, and readiness says so', async () => {
    // No periodic poll: the test decides when the feed fails and when it reads again.
    runtime = await testRuntime({ menu: SAMPLE_MENU, config: { ...UNLIMITED, changePollMs: 600_000 } });
    const { app, seed, feed } = runtime;
    // The change feed cannot read the database: as when the database goes away.
    const failing = feed as unknown as { lastFailure: unknown };
    failing.lastFailure = new Error('connection lost');
    const refused = await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    expectError(refused, 503, 'unavailable');
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    // Health and metrics still answer while the database is away.
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect(sample(await scrape(app), 'menu_api_database_up')).toBe(0);
    // The database itself answers, so readiness re-reads the feed, recovers, and serving resumes.
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) })).statusCode).toBe(
      200,
    );
  });
});

describe('--ops-port: a separate listener for /healthz, /readyz and /metrics', () => {
  let runtime: TestRuntime;
  afterEach(async () => {
    await runtime?.close();
  });

  it('serves them on the ops app only; the public app answers 404 for them', async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU, config: { ...UNLIMITED, opsPort: 0 } });
    const { app, ops, seed } = runtime;
    expect(ops).toBeDefined();
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      expectError(await app.inject({ method: 'GET', url }), 404, 'not_found');
    }
    expect((await ops!.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await ops!.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
    // The public app's requests are what the ops listener's /metrics reports.
    await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    expect(
      sample(await scrape(ops!), 'menu_api_http_requests_total', {
        method: 'GET',
        route: '/menu',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect((await ops!.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(200);
  });

  it('answers anything else on the ops app with the JSON errors of the public port', async () => {
    runtime = await testRuntime({ config: { ...UNLIMITED, opsPort: 0 } });
    const ops = runtime.ops!;
    const wrongMethod = await ops.inject({ method: 'POST', url: '/healthz', payload: {} });
    expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.allow).toBe('GET, HEAD');
    const elsewhere = await ops.inject({ method: 'GET', url: '/menu' });
    expectError(elsewhere, 404, 'not_found');
    // It names what it serves, from its routes.
    expect(elsewhere.json().error.message).toBe(
      'There is no /menu on the ops port: it serves /healthz, /readyz, /metrics. The API is on the public port.',
    );
    expectError(await ops.inject({ method: 'POST', url: '/metrics' }), 405, 'method_not_allowed');
    expectError(await ops.inject({ method: 'GET', url: '/%zz' }), 400, 'invalid_request');
  });

  it('shutdown turns readiness to 503 before the listeners close', async () => {
    runtime = await testRuntime({ config: { ...UNLIMITED, opsPort: 0 } });
    const ops = runtime.ops!;
    let readiness: number | undefined;
    // Ask for readiness as the shutdown begins (the public app is closing first).
    runtime.app.addHook('preClose', async () => {
      readiness = (await ops.inject({ method: 'GET', url: '/readyz' })).statusCode;
    });
    await runtime.shutdown({ timeoutMs: 1_000 });
    expect(readiness).toBe(503);
  });
});
