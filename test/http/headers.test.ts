import { InvalidArgumentError } from 'commander';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBucket, parseLoginFailures, parseOrigins, parseTrustProxy } from '../../src/config/parse.js';
import type { ServerConfig } from '../../src/config.js';
import { sendError } from '../../src/http/pipeline/errors.js';
import { adminKey } from '../helpers/admin.js';
import { formARequest, formBHeaders, formBRequest, loggedTestRuntime, rawHttp } from '../helpers/http.js';
import { SAMPLE_MENU, type Seed, type TestRuntime, testRuntime } from '../helpers/runtime.js';

let runtime: TestRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

async function start(config: Partial<ServerConfig> = {}): Promise<TestRuntime> {
  runtime = await testRuntime({ menu: SAMPLE_MENU, config });
  return runtime;
}

/** A runtime (see start) with an admin key of it, for the sync API's answers. */
async function startWithKey() {
  const { app, seed } = await start();
  return { app, seed, key: await adminKey(runtime!) };
}

/** A Form A request, and a Form B one, of `url` with a seed's credentials and token. */
const formA = (app: TestRuntime['app'], url: string, seed: Seed) => app.inject(formARequest(seed, url));
const formB = (app: TestRuntime['app'], url: string, seed: Seed) => app.inject(formBRequest(seed, url));

function expectNoSniff(response: LightMyRequestResponse, what: string): void {
  expect(response.headers['x-content-type-options'], what).toBe('nosniff');
}

describe('headers: X-Content-Type-Options and Cache-Control', () => {
  it('every answer carries nosniff: successes, errors, health, the sync API', async () => {
    const { app, seed, key } = await startWithKey();
    const answers: [string, LightMyRequestResponse][] = [
      ['Form A 200', await formA(app, '/menu', seed)],
      ['Form B 200', await formB(app, '/menu', seed)],
      ['HEAD', await app.inject({ method: 'HEAD', url: '/menu', headers: formBHeaders(seed) })],
      ['401', await formA(app, '/menu', { ...seed, password: 'x' })],
      ['403', await formB(app, '/menu', { ...seed, token: 'x' })],
      ['400', await app.inject({ method: 'POST', url: '/menu', payload: '{' })],
      ['404', await app.inject({ method: 'GET', url: '/nowhere' })],
      ['405', await app.inject({ method: 'DELETE', url: '/menu' })],
      ['413', await app.inject({ method: 'POST', url: '/menu', payload: 'a'.repeat(70_000) })],
      [
        '415',
        await app.inject({
          method: 'POST',
          url: '/menu',
          payload: '<x/>',
          headers: { 'content-type': 'application/xml' },
        }),
      ],
      ['healthz', await app.inject({ method: 'GET', url: '/healthz' })],
      ['admin 200', await key.call('GET', '/dispensaries')],
      ['admin 401', await app.inject({ method: 'GET', url: '/admin/v1/dispensaries' })],
    ];
    for (const [what, response] of answers) expectNoSniff(response, what);
  });

  it('authenticated answers without a validator are no-store; so are errors', async () => {
    const { app, seed, key } = await startWithKey();
    const answers: [string, LightMyRequestResponse][] = [
      ['POST /menu', await formA(app, '/menu', seed)],
      ['POST /store', await formA(app, '/store', seed)],
      ['GET /inventory?since', await formB(app, '/inventory?since=2020-01-01T00:00:00Z', seed)],
      ['401', await formB(app, '/menu', { ...seed, password: 'x' })],
      ['403', await formA(app, '/menu', { ...seed, token: 'x' })],
      ['admin GET', await key.call('GET', '/dispensaries')],
      ['admin 401', await app.inject({ method: 'GET', url: '/admin/v1/dispensaries' })],
    ];
    for (const [what, response] of answers) expect(response.headers['cache-control'], what).toBe('no-store');
  });

  it('an answer that set its own Cache-Control keeps it (the ETag revalidation of GET /menu)', async () => {
    const { app, seed } = await start();
    const menu = await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    expect(menu.statusCode).toBe(200);
    expect(menu.headers.etag).toMatch(/^"[^"]+"$/);
    expect(menu.headers['cache-control']).toBe('private, no-cache');
  });

  it('a route of its own choosing is not overridden', async () => {
    const { app } = await start();
    // (An error answer, so that the contract check accepts a route the OpenAPI document lacks.)
    app.get('/test-own-cache-control', async (request, reply) => {
      reply.header('cache-control', 'public, max-age=60');
      return sendError(reply, request, 'not_found', 'A route of its own.');
    });
    const response = await app.inject({ method: 'GET', url: '/test-own-cache-control' });
    expect(response.headers['cache-control']).toBe('public, max-age=60');
    expectNoSniff(response, 'own route');
  });

  it("answers from Node's parser (431) carry them too", async () => {
    const { app } = await start();
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const response = await rawHttp(url, [
      'GET /menu HTTP/1.1',
      'Host: localhost',
      `X-Big: ${'a'.repeat(20_000)}`,
    ]);
    expect(response.status).toBe(431);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-store');
  });
});

describe('headers: CORS', () => {
  const SHOP = 'https://shop.example';

  it('is off by default: no Access-Control header, whatever the Origin', async () => {
    const { app, seed } = await start();
    const response = await app.inject({
      method: 'GET',
      url: '/menu',
      headers: { ...formBHeaders(seed), origin: SHOP },
    });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/menu',
      headers: { origin: SHOP, 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('with an allowlist, allows exactly those origins', async () => {
    const { app, seed } = await start({ corsOrigins: [SHOP, 'http://localhost:3000'] });
    const allowed = await app.inject({
      method: 'GET',
      url: '/menu',
      headers: { ...formBHeaders(seed), origin: SHOP },
    });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(SHOP);
    expect(String(allowed.headers.vary)).toMatch(/origin/i);
    expect(String(allowed.headers['access-control-expose-headers'])).toContain('ratelimit');

    const other = await app.inject({
      method: 'GET',
      url: '/menu',
      headers: { ...formBHeaders(seed), origin: 'https://evil.example' },
    });
    expect(other.statusCode).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();

    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/menu',
      headers: {
        origin: SHOP,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'store, username, password',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(SHOP);
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('username');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('GET');

    const refusedPreflight = await app.inject({
      method: 'OPTIONS',
      url: '/menu',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(refusedPreflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('--cors-origin / CORS_ORIGINS take origins only', () => {
    expect(parseOrigins('https://a.example, http://localhost:3000')).toEqual([
      'https://a.example',
      'http://localhost:3000',
    ]);
    for (const bad of ['*', 'https://a.example/', 'a.example', 'https://a.example/path']) {
      expect(() => parseOrigins(bad), bad).toThrow(InvalidArgumentError);
    }
  });
});

describe('headers: TRUST_PROXY', () => {
  const limited = { rateLimitAddress: { ratePerSecond: 0.01, burst: 1 } };
  /** A Form B GET /store by `seed` claiming X-Forwarded-For `forwarded`, from `remoteAddress` (inject's default). */
  const storeRead = (
    app: Pick<TestRuntime['app'], 'inject'>,
    seed: TestRuntime['seed'],
    forwarded: string,
    remoteAddress = '127.0.0.1',
  ) =>
    app.inject({
      method: 'GET',
      url: '/store',
      headers: { ...formBHeaders(seed), 'x-forwarded-for': forwarded },
      remoteAddress,
    });

  it('by default X-Forwarded-For is not believed: the socket address is the client', async () => {
    const { app, seed } = await start(limited);
    const from = (forwarded: string) => storeRead(app, seed, forwarded);
    expect((await from('198.51.100.1')).statusCode).toBe(200);
    // A different claimed address does not buy a new bucket.
    expect((await from('198.51.100.2')).statusCode).toBe(429);
  });

  it('with TRUST_PROXY=true, X-Forwarded-For is the client address for limits and logs', async () => {
    const logged = await loggedTestRuntime({ config: { ...limited, trustProxy: true } });
    try {
      const { app } = logged.runtime;
      const from = (forwarded: string) => storeRead(app, logged.seed, forwarded);
      expect((await from('198.51.100.1')).statusCode).toBe(200);
      expect((await from('198.51.100.2')).statusCode).toBe(200);
      expect((await from('198.51.100.1')).statusCode).toBe(429);
      const addresses = logged.lines
        .map((line) => JSON.parse(line) as { msg?: string; address?: string })
        .filter((line) => line.msg === 'request')
        .map((line) => line.address);
      expect(addresses).toEqual(['198.51.100.1', '198.51.100.2', '198.51.100.1']);
    } finally {
      await logged.close();
    }
  });

  it('with a list of proxies, only their X-Forwarded-For is believed', async () => {
    const { app, seed } = await start({ ...limited, trustProxy: ['10.0.0.0/8'] });
    const via = (remoteAddress: string, forwarded: string) => storeRead(app, seed, forwarded, remoteAddress);
    expect((await via('10.1.2.3', '198.51.100.1')).statusCode).toBe(200);
    expect((await via('10.1.2.3', '198.51.100.2')).statusCode).toBe(200);
    // Not a trusted proxy: its claim is ignored, and the address is its own.
    expect((await via('192.0.2.50', '198.51.100.3')).statusCode).toBe(200);
    expect((await via('192.0.2.50', '198.51.100.4')).statusCode).toBe(429);
  });

  it('with a number of hops, that many proxies are believed', async () => {
    const { app, seed } = await start({ ...limited, trustProxy: 1 });
    const via = (forwarded: string) => storeRead(app, seed, forwarded);
    // One hop: the last address the proxy appended is the client; anything before it is the client's claim.
    expect((await via('1.1.1.1, 198.51.100.1')).statusCode).toBe(200);
    expect((await via('2.2.2.2, 198.51.100.1')).statusCode).toBe(429);
    expect((await via('2.2.2.2, 198.51.100.2')).statusCode).toBe(200);
  });

  it('TRUST_PROXY takes false, true, hops, or addresses and CIDRs', () => {
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.1,loopback,fd00::/8')).toEqual([
      '10.0.0.0/8',
      '192.168.1.1',
      'loopback',
      'fd00::/8',
    ]);
    for (const bad of ['yes', '10.0.0.0/33', 'example.com']) {
      expect(() => parseTrustProxy(bad), bad).toThrow(InvalidArgumentError);
    }
  });

  it('the rate-limit and login options parse their values', () => {
    expect(parseBucket('20,100')).toEqual({ ratePerSecond: 20, burst: 100 });
    expect(parseBucket('0.5,3')).toEqual({ ratePerSecond: 0.5, burst: 3 });
    expect(parseBucket('off')).toBeNull();
    for (const bad of ['20', '0,10', '20,0', '20,1.5', 'x,y']) {
      expect(() => parseBucket(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(parseLoginFailures('10,50,200')).toEqual([10, 50, 200]);
    expect(() => parseLoginFailures('10,50')).toThrow(InvalidArgumentError);
  });
});
