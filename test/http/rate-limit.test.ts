import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS, type ServerConfig } from '../../src/config.js';
import { MemoryRateLimiter } from '../../src/infra/rate-limit/memory.js';
import type { BucketPolicy, RateLimiter } from '../../src/infra/rate-limit/rate-limiter.js';
import { RedisRateLimiter } from '../../src/infra/rate-limit/redis.js';
import { SharedRedis } from '../../src/infra/redis.js';
import { adminKey } from '../helpers/admin.js';
import { expectError, formABody, formBHeaders, formV1Headers, loggedTestRuntime } from '../helpers/http.js';
import { freePort } from '../helpers/process.js';
import { REDIS_URL, testRedis } from '../helpers/redis.js';
import { GENEROUS_LIMITS, type TestRuntime, testRuntime } from '../helpers/runtime.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/wait.js';

const { prefix: PREFIX, connect: sharedRedis, closeAtEnd } = testRedis();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves once the client has failed `count` more attempts to reconnect (ioredis schedules each anew). */
function failedReconnections(redis: SharedRedis, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onReconnecting = () => {
      if (++seen < count) return;
      redis.client.off('reconnecting', onReconnecting);
      resolve();
    };
    redis.client.on('reconnecting', onReconnecting);
  });
}

interface Implementation {
  name: string;
  make(): Promise<RateLimiter>;
  /** config for a runtime that keeps its buckets here */
  config(): Partial<ServerConfig>;
  /** Lets `ms` pass for the limiter's clock. */
  elapse(ms: number): Promise<void>;
}

/** The memory limiter's clock: moved by the tests, never by the wall. */
let memoryNow = Date.now();

const IMPLEMENTATIONS: Implementation[] = [
  {
    name: 'memory',
    make: async () => new MemoryRateLimiter({ now: () => memoryNow }),
    config: () => ({}),
    elapse: async (ms) => {
      memoryNow += ms;
    },
  },
  {
    name: 'redis',
    make: async () => new RedisRateLimiter(await sharedRedis(), PREFIX),
    config: () => ({ redisUrl: REDIS_URL, redisPrefix: `${PREFIX}${randomBytes(4).toString('hex')}:` }),
    // The script reads Redis's own clock (TIME): only real time moves it.
    elapse: (ms) => sleep(ms),
  },
];

let unique = 0;
const policy = (ratePerSecond: number, burst: number, name = `p${++unique}`): BucketPolicy => ({
  name,
  ratePerSecond,
  burst,
});

describe.each(IMPLEMENTATIONS)('RateLimiter: $name', (implementation) => {
  let limiter: RateLimiter;
  beforeAll(async () => {
    limiter = await implementation.make();
  });
  afterAll(async () => {
    await limiter.close();
  });

  it('allows a full burst, counting down, then refuses with the seconds until the next token', async () => {
    const bucket = policy(0.1, 3);
    const decisions = [];
    for (let index = 0; index < 4; index += 1) decisions.push(await limiter.take(bucket, 'k'));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((decision) => decision.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions[0]!.retryAfterSeconds).toBe(0);
    expect(decisions[3]!.retryAfterSeconds).toBe(10);
    // Allowed: the seconds until the bucket is full again (three tokens at one per ten seconds).
    expect(decisions[2]!.resetSeconds).toBe(30);
    // Refused: the same moment as Retry-After.
    expect(decisions[3]!.resetSeconds).toBe(decisions[3]!.retryAfterSeconds);
  });

  it('refills at the rate', async () => {
    const bucket = policy(2, 2);
    expect((await limiter.take(bucket, 'k')).allowed).toBe(true);
    expect((await limiter.take(bucket, 'k')).allowed).toBe(true);
    expect((await limiter.take(bucket, 'k')).allowed).toBe(false);
    await implementation.elapse(750); // 1.5 tokens back
    expect((await limiter.take(bucket, 'k')).allowed).toBe(true);
    expect((await limiter.take(bucket, 'k')).allowed).toBe(false);
  });

  it('keeps keys and policies apart', async () => {
    const first = policy(1, 1);
    const second = policy(1, 1);
    expect((await limiter.take(first, 'a')).allowed).toBe(true);
    expect((await limiter.take(first, 'a')).allowed).toBe(false);
    expect((await limiter.take(first, 'b')).allowed).toBe(true);
    expect((await limiter.take(second, 'a')).allowed).toBe(true);
  });

  it('lets exactly the burst through when many requests arrive at once (the bucket is atomic)', async () => {
    const bucket = policy(0.001, 10);
    const decisions = await Promise.all(Array.from({ length: 60 }, () => limiter.take(bucket, 'k')));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
  });
});

describe('RateLimiter: memory, when full', () => {
  it('forgets refilled buckets first, then the oldest, and never holds more than its maximum', () => {
    let now = 0;
    const limiter = new MemoryRateLimiter({ maxBuckets: 10, now: () => now });
    const bucket = policy(1, 2);
    // Two keys drained a second ago (still short of tokens), eight idle for long enough to refill.
    for (const key of ['busy-1', 'busy-2']) {
      limiter.take(bucket, key);
      limiter.take(bucket, key);
    }
    now = 100;
    for (let index = 0; index < 8; index += 1) limiter.take(bucket, `idle-${index}`);
    now = 5_000;
    for (const key of ['busy-1', 'busy-2']) limiter.take(bucket, key);
    expect(limiter.size).toBe(10);

    // The eleventh key makes room: the idle buckets have refilled, so they are the ones forgotten.
    limiter.take(bucket, 'new');
    expect(limiter.size).toBe(3);
    // busy-1 was remembered: one token left of its refill, so the next take empties it.
    expect(limiter.take(bucket, 'busy-1')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take(bucket, 'busy-1').allowed).toBe(false);

    // A flood of new keys that all stay in use: the oldest go, and the count never passes 10.
    for (let index = 0; index < 50; index += 1) {
      limiter.take(bucket, `flood-${index}`);
      limiter.take(bucket, `flood-${index}`);
      expect(limiter.size).toBeLessThanOrEqual(10);
    }
    expect(limiter.take(bucket, 'flood-49').allowed).toBe(false);
  });
});

describe('RateLimiter: redis across processes', () => {
  it('two limiters with their own connections share one bucket', async () => {
    const one = new RedisRateLimiter(await sharedRedis(), PREFIX);
    const two = new RedisRateLimiter(await sharedRedis(), PREFIX);
    const bucket = policy(0.001, 4);
    const decisions = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 ? one : two).take(bucket, 'shared')),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(4);
  });
});

describe('RateLimiter: redis fallback', () => {
  it('with Redis unreachable, limits in memory, says so once, and never fails a request', async () => {
    const warnings: string[] = [];
    const redis = new SharedRedis(`redis://127.0.0.1:${await freePort()}`, {
      warn: (message) => warnings.push(message),
      info: () => {},
    });
    closeAtEnd(redis);
    expect(await redis.connected(2_000)).toBe(false);
    const limiter = new RedisRateLimiter(redis, PREFIX);
    const bucket = policy(0.001, 2);
    const decisions = [];
    for (let index = 0; index < 3; index += 1) decisions.push(await limiter.take(bucket, 'k'));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, false]);
    await failedReconnections(redis, 2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/unreachable.*memory/);
  });

  it('goes back to Redis when it returns, and says so', async () => {
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) });
    const logged: string[] = [];
    const redis = new SharedRedis(`redis://127.0.0.1:${proxy.port}`, {
      warn: (message) => logged.push(`warn ${message}`),
      info: (message) => logged.push(`info ${message}`),
    });
    closeAtEnd(redis);
    try {
      expect(await redis.connected(3_000)).toBe(true);
      const limiter = new RedisRateLimiter(redis, PREFIX);
      const other = new RedisRateLimiter(await sharedRedis(), PREFIX);
      const bucket = policy(0.001, 3);
      expect((await limiter.take(bucket, 'k')).remaining).toBe(2);

      await proxy.close();
      await until(() => !redis.usable, 5_000, 'the client to see Redis gone');
      // In memory now: a fresh bucket of this process.
      expect((await limiter.take(bucket, 'k')).remaining).toBe(2);
      expect(logged.filter((line) => line.startsWith('warn'))).toHaveLength(1);

      await proxy.open();
      await until(() => redis.usable, 5_000, 'Redis to be usable again');
      // Redis again: the bucket every process sees (one token was taken there before the outage).
      expect((await limiter.take(bucket, 'k')).remaining).toBe(1);
      expect((await other.take(bucket, 'k')).remaining).toBe(0);
      expect(logged.filter((line) => line.startsWith('info'))).toHaveLength(1);
      expect(logged.filter((line) => line.startsWith('warn'))).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

const small = (ratePerSecond: number, burst: number) => ({ ratePerSecond, burst });

function expectLimited(response: LightMyRequestResponse, bucket: string): void {
  const error = expectError(response, 429, 'rate_limited');
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(String(response.headers.ratelimit)).toContain(`"${bucket}";r=0;`);
  expect(error.message).toMatch(/Too many requests/);
}

describe.each(IMPLEMENTATIONS)('HTTP rate limits: $name', (implementation) => {
  let runtime: TestRuntime;
  afterEach(async () => {
    await runtime?.close();
  });

  const start = (config: Partial<ServerConfig>) =>
    testRuntime({ config: { ...GENEROUS_LIMITS, ...implementation.config(), ...config } }).then((made) => {
      runtime = made;
      return made;
    });

  /**
   * Each public endpoint in each form: Form A's POST with the body, Form B's GET with the headers,
   * Form v1's GET with HTTP Basic and Dispensary-Token.
   */
  const publicRequests = (seed: TestRuntime['seed']) => [
    ...['/menu', '/store', '/inventory'].flatMap((url) => [
      {
        name: `POST ${url}`,
        request: () => ({ method: 'POST' as const, url, payload: formABody(seed) }),
      },
      {
        name: `GET ${url}`,
        request: () => ({ method: 'GET' as const, url, headers: formBHeaders(seed) }),
      },
    ]),
    ...['/v1/menu', '/v1/store', '/v1/inventory', '/v1/specials', '/v1/changes'].map((url) => ({
      name: `GET ${url}`,
      request: () => ({ method: 'GET' as const, url, headers: formV1Headers(seed) }),
    })),
  ];

  it('every public endpoint counts in the credential bucket: the burst, then 429 with Retry-After', async () => {
    const { app, seed } = await start({ rateLimitCredential: small(0.01, 2) });
    for (const endpoint of publicRequests(seed)) {
      const other = await runtime.services.credentials.issue(`user-${endpoint.name.replace(/\W/g, '')}`);
      const credentials = { ...seed, username: other.username, password: other.password };
      const request = publicRequests(credentials).find((candidate) => candidate.name === endpoint.name)!;
      const first = await app.inject(request.request());
      expect(first.statusCode, endpoint.name).toBe(200);
      expect(first.headers['ratelimit-policy']).toContain('"credential";q=2;w=200');
      expect(first.headers.ratelimit).toContain('"credential";r=1;');
      expect((await app.inject(request.request())).statusCode, endpoint.name).toBe(200);
      expectLimited(await app.inject(request.request()), 'credential');
    }
    // Each credential has its own bucket: the seed credential is untouched.
    expect((await app.inject(publicRequests(seed)[0]!.request())).statusCode).toBe(200);
  });

  it("a stranger who knows the username neither sees nor spends the credential's bucket", async () => {
    const { app, seed } = await start({ rateLimitCredential: small(0.01, 3), rateLimitAddress: null });
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = await app.inject({
        method: 'GET',
        url: '/menu',
        headers: formBHeaders({ ...seed, password: 'not-the-password' }),
      });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.headers.ratelimit).toBeUndefined();
      expect(wrong.headers['ratelimit-policy']).toBeUndefined();
    }
    // The owner's bucket is untouched: the first proven request leaves two of three.
    const right = await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    expect(right.statusCode).toBe(200);
    expect(right.headers.ratelimit).toMatch(/^"credential";r=2;t=\d+$/);
  });

  it('the address bucket counts every request from one address, whatever the credential', async () => {
    const { app, seed } = await start({ rateLimitAddress: small(0.01, 3), rateLimitCredential: null });
    const other = await runtime.services.credentials.issue('second-integrator');
    const responses = [
      await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) }),
      await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders({ ...seed, ...other }) }),
      await app.inject({ method: 'POST', url: '/menu', payload: '{not json' }),
    ];
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 400]);
    expect(responses[0]!.headers['ratelimit-policy']).toBe('"address";q=3;w=300');
    expect(responses[0]!.headers.ratelimit).toMatch(/^"address";r=2;t=\d+$/);
    const refused = await app.inject({ method: 'GET', url: '/nowhere' });
    expectLimited(refused, 'address');
    // A token every 100 s; a little of the next one has come back meanwhile.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(90);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(100);
    // Another address has its own bucket.
    const elsewhere = await app.inject({
      method: 'GET',
      url: '/menu',
      headers: formBHeaders(seed),
      remoteAddress: '203.0.113.9',
    });
    expect(elsewhere.statusCode).toBe(200);
  });

  it('one IPv6 /64 is one address', async () => {
    const { app, seed } = await start({ rateLimitAddress: small(0.01, 1) });
    const from = (remoteAddress: string) =>
      app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed), remoteAddress });
    expect((await from('2001:db8:1:2::1')).statusCode).toBe(200);
    expectLimited(await from('2001:db8:1:2:ffff::9'), 'address');
    expect((await from('2001:db8:1:3::1')).statusCode).toBe(200);
  });

  it('both buckets are reported together when both apply', async () => {
    const { app, seed } = await start({ rateLimitAddress: small(10, 50), rateLimitCredential: small(5, 20) });
    const response = await app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit-policy']).toBe('"address";q=50;w=5, "credential";q=20;w=4');
    expect(response.headers.ratelimit).toMatch(/^"address";r=49;t=\d+, "credential";r=19;t=\d+$/);
  });

  it('the sync API has a bucket per admin key, and the address bucket too', async () => {
    await start({ rateLimitAdminKey: small(0.01, 2), rateLimitAddress: small(0.01, 5) });
    const first = await adminKey(runtime);
    const second = await adminKey(runtime);
    expect((await first.call('GET', '/dispensaries')).statusCode).toBe(200);
    const counted = await first.call('GET', '/dispensaries');
    expect(counted.statusCode).toBe(200);
    expect(counted.headers['ratelimit-policy']).toBe('"address";q=5;w=500, "admin-key";q=2;w=200');
    expectLimited(await first.call('GET', '/dispensaries'), 'admin-key');
    expect((await second.call('GET', '/dispensaries')).statusCode).toBe(200);
    expect((await second.call('GET', '/dispensaries')).statusCode).toBe(200);
    // Five requests from this address so far: the sixth is refused whatever the key.
    expectLimited(await second.call('GET', '/dispensaries'), 'address');
  });

  it('health checks are never limited', async () => {
    const { app } = await start({ rateLimitAddress: small(0.01, 1) });
    for (let index = 0; index < 5; index += 1) {
      const response = await app.inject({ method: 'GET', url: '/healthz' });
      expect(response.statusCode).toBe(200);
      expect(response.headers.ratelimit).toBeUndefined();
    }
  });

  it('the default limits allow a burst of 100 per credential', async () => {
    const { app, seed } = await start({
      rateLimitCredential: DEFAULTS.rateLimitCredential,
      rateLimitAddress: DEFAULTS.rateLimitAddress,
    });
    const statuses = [];
    for (let index = 0; index < 101; index += 1) {
      statuses.push(
        (await app.inject({ method: 'GET', url: '/store', headers: formBHeaders(seed) })).statusCode,
      );
    }
    expect(statuses.slice(0, 100).every((status) => status === 200)).toBe(true);
    // 101 requests take a few hundred ms at most: a token or more came back in between, or not.
    expect([200, 429]).toContain(statuses[100]);
    const policy = (await app.inject({ method: 'GET', url: '/store', headers: formBHeaders(seed) })).headers[
      'ratelimit-policy'
    ];
    expect(policy).toBe('"address";q=200;w=4, "credential";q=100;w=5');
  });
});

describe('HTTP rate limits: Redis unreachable', () => {
  it('the server keeps serving, limits in memory, and logs one warning', async () => {
    const logged = await loggedTestRuntime({
      config: { redisUrl: `redis://127.0.0.1:${await freePort()}`, rateLimitCredential: small(0.01, 2) },
    });
    try {
      const { app } = logged.runtime;
      const request = () => app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(logged.seed) });
      expect((await request()).statusCode).toBe(200);
      expect((await request()).statusCode).toBe(200);
      expectLimited(await request(), 'credential');
      const warnings = logged.lines.filter((line) => line.includes('Redis') && line.includes('unreachable'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!).level).toBe(40);
    } finally {
      await logged.close();
    }
  });
});
