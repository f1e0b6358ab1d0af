import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS, type ServerConfig } from '../../src/config.js';
import { startDraining } from '../../src/http/pipeline/drain.js';
import type { ContractCheck } from '../../src/server/app.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { basicAuthorization } from '../helpers/basic-auth.js';
import { contractCheck } from '../helpers/contract.js';
import { testDatabase } from '../helpers/database.js';
import { GENEROUS_LIMITS, SAMPLE_MENU, type Seed, seedRuntime, TEST_SCRYPT } from '../helpers/runtime.js';

/**
 * The read lane (src/http/pipeline/read-lane.ts) answers plain Form B `GET /menu` reads before Fastify routes
 * them. Every case here sends the same requests, over real HTTP (`inject` never reaches the lane), to
 * two servers over one database: one with the lane, one without. Their answers must be the same,
 * byte for byte, header for header; what the lane took is told by Fastify's answer count (the
 * contract check sees every answer Fastify sends, and none the lane sends).
 */

interface Served {
  runtime: Runtime;
  url: string;
  /** Answers Fastify sent (each passes the contract check). */
  fastifyAnswers: number;
  /** The request lines it logged. */
  lines: Record<string, unknown>[];
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let pair: { lane: Served; plain: Served; seed: Seed; close(): Promise<void> } | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

async function serve(config: ServerConfig, readLane: boolean): Promise<Served> {
  const served = { fastifyAnswers: 0, lines: [] as Record<string, unknown>[] } as Served;
  const counting: ContractCheck = (request, reply, payload) => {
    served.fastifyAnswers++;
    contractCheck(request, reply, payload);
  };
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.msg === 'request') served.lines.push(parsed);
      },
    },
  );
  served.runtime = await createRuntime(config, {
    logger,
    scryptCost: TEST_SCRYPT,
    contractCheck: counting,
    readLane,
  });
  served.url = await served.runtime.app.listen({ host: '127.0.0.1', port: 0 });
  return served;
}

/** A server with the lane and one without, over one new database with one dispensary and credential. */
async function start(config: Partial<ServerConfig> = {}) {
  const database = await testDatabase();
  const full: ServerConfig = {
    ...DEFAULTS,
    database: database.address,
    databasePoolSize: 2,
    ...GENEROUS_LIMITS,
    // Buckets that hardly refill, so that RateLimit's r and t depend on the requests alone, never on
    // the time between them.
    rateLimitAddress: { ratePerSecond: 0.001, burst: 1_000_000 },
    rateLimitCredential: { ratePerSecond: 0.001, burst: 1_000_000 },
    ...config,
  };
  // With Redis, each server keeps its buckets under a prefix of its own, as in memory.
  const apart = (server: string) =>
    full.redisUrl ? { ...full, redisPrefix: `${full.redisPrefix}${server}-${Date.now()}:` } : full;
  const lane = await serve(apart('lane'), true);
  const plain = await serve(apart('plain'), false);
  const seed = await seedRuntime(
    lane.runtime,
    { dispensary: 'Lane Collective', username: 'lane' },
    SAMPLE_MENU,
  );
  pair = {
    lane,
    plain,
    seed,
    async close() {
      await lane.runtime.close();
      await plain.runtime.close();
      await database.cleanup();
    },
  };
  return pair;
}

function send(
  url: string,
  options: { method?: string; path?: string; headers?: [string, string | string[]][]; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(options.path ?? '/menu', url), {
      method: options.method ?? 'GET',
      agent: false,
    });
    for (const [name, value] of options.headers ?? []) request.setHeader(name, value);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}

/**
 * The headers that must be equal between the two servers' answers: all but the clock's (`date`), and
 * `retry-after`, which counts whole seconds to the next token of each server's own bucket: the two
 * buckets were drained a few milliseconds apart, so the rounding may differ by one (see `both`). So
 * may the same count in a refusal's message, and with it the body's length when the count crosses a
 * power of ten (99 and 100 seconds): `content-length` is compared without the wait's digits
 * (lengthBesideWait).
 */
function comparable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { date: _date, 'retry-after': _retryAfter, 'content-length': _length, ratelimit, ...rest } = headers;
  return ratelimit === undefined ? rest : { ...rest, ratelimit: String(ratelimit).replace(RESET, ';t=*') };
}

/** A RateLimit field's reset (`t=` seconds): like Retry-After, it may tick between the two servers' answers. */
const RESET = /;t=(\d+)/g;
const resets = (headers: IncomingHttpHeaders) =>
  [...String(headers.ratelimit ?? '').matchAll(RESET)].map((match) => Number(match[1]));

const credentials = (seed: Seed, override: Partial<Record<'store' | 'username' | 'password', string>> = {}) =>
  Object.entries({ store: seed.token, username: seed.username, password: seed.password, ...override }) as [
    string,
    string,
  ][];

/** Form v1's credential headers for the seed: HTTP Basic and Dispensary-Token. */
const v1Credentials = (
  seed: Seed,
  override: { password?: string; token?: string } = {},
): [string, string][] => [
  ['authorization', basicAuthorization(`${seed.username}:${override.password ?? seed.password}`)],
  ['dispensary-token', override.token ?? seed.token],
];

/** Form A's body fields for the seed. */
const formAFields = (seed: Seed) => ({
  username: seed.username,
  password: seed.password,
  collective_token: seed.token,
});

/** A Form A request with this body text: JSON by default, with its Content-Length unless `length` is false. */
function formAPost(
  body: string,
  headers: [string, string][],
  options: { type?: string; length?: boolean } = {},
): Parameters<typeof send>[1] {
  const { type = 'application/json', length = true } = options;
  const sized: [string, string][] = length ? [['content-length', String(Buffer.byteLength(body))]] : [];
  return { method: 'POST', headers: [['content-type', type], ...sized, ...headers], body };
}

/**
 * A RateLimit field with each reset (`t=` seconds) rounded up to a hundred: a reset ticks down with
 * every second the test takes (a failed password pays a full scrypt on a busy machine), and every
 * bucket of these tests refills in hundreds of seconds, so the rounded reset still tells one request
 * counted from two.
 */
const hundreds = (ratelimit: string) =>
  ratelimit.replace(RESET, (_field, seconds: string) => `;t=${Math.ceil(Number(seconds) / 100) * 100}`);

/**
 * The seconds a refusal's message tells the client to wait (`Wait 900 seconds` from the login guard,
 * `Retry after 100 seconds` from a rate limit), if it tells one.
 */
const WAIT = /(Wait|Retry after) (\d+) seconds/;
const waitOf = (body: string) => {
  const match = WAIT.exec(body);
  return match ? Number(match[2]) : undefined;
};
const withoutWait = (body: string) => body.replace(WAIT, '$1 * seconds');
/** An answer's Content-Length less the digits of the wait its message names (the whole of it when none). */
const lengthBesideWait = (answer: Answer) => {
  const length = answer.headers['content-length'];
  const wait = waitOf(answer.body.toString());
  return length === undefined ? undefined : Number(length) - (wait === undefined ? 0 : String(wait).length);
};

/** An answer's status and address bucket, as `200 "address";r=1;t=1000` (the reset in hundreds). */
const addressState = (answer: Answer) =>
  `${answer.status} ${hundreds(String(answer.headers.ratelimit).split(',')[0]!)}`;

/**
 * Sends one request to both servers and expects the same answer from each; returns the lane server's
 * answer and whether the lane took it (Fastify's answer count did not move).
 */
async function both(
  served: { lane: Served; plain: Served },
  options: Parameters<typeof send>[1],
): Promise<{ answer: Answer; tookLane: boolean }> {
  const before = served.lane.fastifyAnswers;
  const answer = await send(served.lane.url, options);
  const tookLane = served.lane.fastifyAnswers === before;
  const expected = await send(served.plain.url, options);
  expect(answer.status, 'status').toBe(expected.status);
  expect(comparable(answer.headers), 'headers').toEqual(comparable(expected.headers));
  expect(lengthBesideWait(answer), 'content-length, the wait in the message aside').toBe(
    lengthBesideWait(expected),
  );
  const retryAfter = [answer, expected].map((each) => each.headers['retry-after']);
  expect(retryAfter[0] === undefined, 'retry-after sent by one only').toBe(retryAfter[1] === undefined);
  if (retryAfter[0] !== undefined)
    expect(Math.abs(Number(retryAfter[0]) - Number(retryAfter[1])), 'retry-after').toBeLessThanOrEqual(1);
  const [laneResets, plainResets] = [resets(answer.headers), resets(expected.headers)];
  laneResets.forEach((reset, index) => {
    expect(Math.abs(reset - plainResets[index]!), 'ratelimit reset').toBeLessThanOrEqual(1);
  });
  // A refusal's message names its wait in seconds, which, like Retry-After, may tick between the two.
  const [laneWait, plainWait] = [answer, expected].map((each) => waitOf(each.body.toString()));
  if (laneWait !== undefined && plainWait !== undefined)
    expect(Math.abs(laneWait - plainWait), 'the wait in the message').toBeLessThanOrEqual(1);
  expect(withoutWait(answer.body.toString()), 'body').toBe(withoutWait(expected.body.toString()));
  return { answer, tookLane };
}

/** Sends each request in turn to both servers (see `both`), expecting the lane to take each; their address states. */
async function addressStates(
  served: { lane: Served; plain: Served },
  requests: Parameters<typeof send>[1][],
): Promise<string[]> {
  const seen: string[] = [];
  for (const options of requests) {
    const { answer, tookLane } = await both(served, options);
    expect(tookLane).toBe(true);
    seen.push(addressState(answer));
  }
  return seen;
}

describe('the read lane', () => {
  it('answers plain Form B menu reads exactly as Fastify does: every coding, 304, 401, 403', async () => {
    const served = await start();
    const { seed } = served;
    const id: [string, string] = ['x-request-id', 'lane-test-1'];
    const cases: [string, [string, string | string[]][], number][] = [
      ['identity', [...credentials(seed), id], 200],
      ['gzip', [...credentials(seed), id, ['accept-encoding', 'gzip']], 200],
      ['br', [...credentials(seed), id, ['accept-encoding', 'br;q=1, gzip;q=0.5']], 200],
      ['no request id', [...credentials(seed), ['accept-encoding', 'gzip']], 200],
      ['wrong password', [...credentials(seed, { password: 'wrong' }), id], 401],
      ['unknown token', [...credentials(seed, { store: 'no-such-token' }), id], 403],
    ];
    for (const [what, headers, status] of cases) {
      // Without a request id of the client's, each server makes its own: compared apart.
      const { answer, tookLane } =
        what === 'no request id'
          ? await (async () => {
              const before = served.lane.fastifyAnswers;
              const answer = await send(served.lane.url, { headers });
              // Counted by both, as every other case is.
              await send(served.plain.url, { headers });
              return { answer, tookLane: served.lane.fastifyAnswers === before };
            })()
          : await both(served, { headers });
      expect(answer.status, what).toBe(status);
      expect(tookLane, what).toBe(true);
      expect(answer.headers['x-request-id'], what).toMatch(
        what === 'no request id' ? /^[0-9a-f-]{36}$/ : /^lane-test-1$/,
      );
    }
    const etag = (await both(served, { headers: [...credentials(seed), id] })).answer.headers.etag!;
    const revalidated = await both(served, { headers: [...credentials(seed), id, ['if-none-match', etag]] });
    expect(revalidated.answer.status).toBe(304);
    expect(revalidated.tookLane).toBe(true);
    const stale = await both(served, { headers: [...credentials(seed), id, ['if-none-match', '"old"']] });
    expect(stale.answer.status).toBe(200);
  });

  it('leaves everything else to Fastify, which answers it as before', async () => {
    const served = await start();
    const { seed } = served;
    const id: [string, string] = ['x-request-id', 'lane-test-2'];
    const cases: [string, Parameters<typeof send>[1], number][] = [
      ['a query', { path: '/menu?active=false', headers: [...credentials(seed), id] }, 400],
      ['a repeated header', { headers: [...credentials(seed), ['username', [seed.username, 'x']], id] }, 400],
      ['a header too long', { headers: [...credentials(seed, { store: 'x'.repeat(257) }), id] }, 400],
      ['a header missing', { headers: [...credentials(seed).slice(1), id] }, 400],
      [
        'a body',
        {
          headers: [...credentials(seed), id, ['content-type', 'text/plain'], ['content-length', '5']],
          body: 'hello',
        },
        200,
      ],
      ['HEAD', { method: 'HEAD', headers: [...credentials(seed), id] }, 200],
      ['another path', { path: '/store', headers: [...credentials(seed), id] }, 200],
    ];
    for (const [what, options, status] of cases) {
      const { answer, tookLane } = await both(served, options);
      expect(answer.status, what).toBe(status);
      expect(tookLane, what).toBe(false);
    }
  });

  it("takes a plain read whatever the order and case of its headers; one the lane reads sent twice is Fastify's", async () => {
    const served = await start();
    const { seed } = served;
    const id = 'lane-test-order';
    const [basic, token] = v1Credentials(seed).map(([, value]) => value);
    const taken: [string, Parameters<typeof send>[1]][] = [
      [
        'Form B, reversed and capitalised',
        {
          headers: [
            ['X-Request-Id', id],
            ['Accept-Encoding', 'gzip'],
            ['PASSWORD', seed.password],
            ['Username', seed.username],
            ['Store', seed.token],
          ],
        },
      ],
      [
        'Form v1, capitalised, with a stale tag',
        {
          path: '/v1/menu',
          headers: [
            ['If-None-Match', '"old"'],
            ['Dispensary-Token', token!],
            ['X-REQUEST-ID', id],
            ['Authorization', basic!],
          ],
        },
      ],
    ];
    for (const [what, options] of taken) {
      const { answer, tookLane } = await both(served, options);
      expect(answer.status, what).toBe(200);
      expect(tookLane, what).toBe(true);
    }
    const idHeader: [string, string] = ['x-request-id', id];
    const left: [string, Parameters<typeof send>[1], number][] = [
      [
        'accept-encoding twice',
        { headers: [...credentials(seed), idHeader, ['accept-encoding', ['identity', 'gzip']]] },
        200,
      ],
      [
        'if-none-match twice',
        { headers: [...credentials(seed), idHeader, ['if-none-match', ['"a"', '"b"']]] },
        200,
      ],
      [
        'store twice',
        { headers: [...credentials(seed), idHeader, ['Store', [seed.token, seed.token]]] },
        400,
      ],
      [
        'Form v1, dispensary-token twice',
        {
          path: '/v1/menu',
          headers: [['authorization', basic!], idHeader, ['dispensary-token', [token!, token!]]],
        },
        403,
      ],
    ];
    for (const [what, options, status] of left) {
      const { answer, tookLane } = await both(served, options);
      expect(answer.status, what).toBe(status);
      expect(tookLane, what).toBe(false);
    }
  });

  it('answers plain Form v1 menu reads exactly as Fastify does: filtered and paged, every coding, 304, 400 for malformed credentials, 401, 403', async () => {
    const served = await start();
    const { seed } = served;
    const id: [string, string] = ['x-request-id', 'lane-test-11'];
    const token = v1Credentials(seed)[1]!;
    const gzip: [string, string] = ['accept-encoding', 'gzip'];
    const cases: [string, Parameters<typeof send>[1], number][] = [
      ['unfiltered', { path: '/v1/menu', headers: [...v1Credentials(seed), id] }, 200],
      ['gzip', { path: '/v1/menu', headers: [...v1Credentials(seed), id, gzip] }, 200],
      ['br', { path: '/v1/menu', headers: [...v1Credentials(seed), id, ['accept-encoding', 'br']] }, 200],
      [
        'filtered, sorted, a page of 1',
        { path: '/v1/menu?sort=-price&limit=1&active=all', headers: [...v1Credentials(seed), id, gzip] },
        200,
      ],
      [
        'repeated and listed values, fields, facets, a search',
        {
          path: '/v1/menu?product_type=Flower&product_type=Edible,Vape&fields=id,name&facets=brand&q=blue+dr',
          headers: [...v1Credentials(seed), id],
        },
        200,
      ],
      ['wrong password', { path: '/v1/menu', headers: [...v1Credentials(seed, { password: 'x' }), id] }, 401],
      // The lane does not decode the Authorization header: the access check refuses a malformed one.
      ['not Basic', { path: '/v1/menu', headers: [['authorization', 'Bearer x'], token, id] }, 400],
      [
        'no colon',
        { path: '/v1/menu', headers: [['authorization', basicAuthorization('integrator')], token, id] },
        400,
      ],
      ['a stray character', { path: '/v1/menu', headers: [['authorization', 'Basic a!b='], token, id] }, 400],
      [
        'a UTF-8 pair nobody holds',
        {
          path: '/v1/menu',
          headers: [['authorization', basicAuthorization('intégrateur:pässwörd')], token, id],
        },
        401,
      ],
      [
        'unknown token',
        { path: '/v1/menu?limit=2', headers: [...v1Credentials(seed, { token: 'x' }), id] },
        403,
      ],
    ];
    for (const [what, options, status] of cases) {
      const { answer, tookLane } = await both(served, options);
      expect(answer.status, what).toBe(status);
      expect(tookLane, what).toBe(true);
    }
    const first = await both(served, { path: '/v1/menu?limit=1', headers: [...v1Credentials(seed), id] });
    expect(first.answer.headers.link).toMatch(/^<\/v1\/menu\?limit=1&cursor=[^>]+>; rel="next"$/);
    const next = String(first.answer.headers.link).slice(1, String(first.answer.headers.link).indexOf('>'));
    const second = await both(served, { path: next, headers: [...v1Credentials(seed), id] });
    expect(second.answer.status).toBe(200);
    expect(second.tookLane).toBe(true);
    const etag = first.answer.headers.etag!;
    const revalidated = await both(served, {
      path: '/v1/menu?limit=1',
      headers: [...v1Credentials(seed), id, ['if-none-match', etag]],
    });
    expect(revalidated.answer.status).toBe(304);
    expect(revalidated.tookLane).toBe(true);
  });

  it('leaves every other Form v1 menu read to Fastify, which answers it as before', async () => {
    const served = await start();
    const { seed } = served;
    const id: [string, string] = ['x-request-id', 'lane-test-12'];
    const get = (path: string, headers: [string, string][] = v1Credentials(seed)) => ({
      path,
      headers: [...headers, id],
    });
    const cases: [string, Parameters<typeof send>[1], number][] = [
      ['a bad value', get('/v1/menu?limit=0'), 400],
      ['a value the schema refuses', get('/v1/menu?sort=cheapest'), 400],
      ['an unknown parameter', get('/v1/menu?snce=1'), 400],
      ['a single parameter twice', get('/v1/menu?limit=1&limit=2'), 400],
      ['a parameter without a value', get('/v1/menu?in_stock'), 400],
      ['a cursor of another query', get('/v1/menu?limit=1&cursor=abc'), 400],
      ['a search with accents', get('/v1/menu?q=bl%C3%BCe'), 200],
      ['a token missing', get('/v1/menu', [v1Credentials(seed)[0]!]), 400],
      ['a trailing slash', get('/v1/menu/'), 400],
      ['HEAD', { ...get('/v1/menu'), method: 'HEAD' }, 200],
    ];
    for (const [what, options, status] of cases) {
      const { answer, tookLane } = await both(served, options);
      expect(answer.status, what).toBe(status);
      expect(tookLane, what).toBe(false);
    }
  });

  it('answers plain Form A menu reads exactly as Fastify does: both views, every coding, 401, 403', async () => {
    const served = await start();
    const { seed } = served;
    const id: [string, string] = ['x-request-id', 'lane-test-5'];
    const post = (fields: Record<string, unknown>, headers: [string, string][] = []) =>
      formAPost(JSON.stringify(fields), [id, ...headers]);
    const fields = formAFields(seed);
    const cases: [string, Parameters<typeof send>[1], number][] = [
      ['identity', post(fields), 200],
      ['gzip', post(fields, [['accept-encoding', 'gzip']]), 200],
      ['active: false', post({ ...fields, active: false }, [['accept-encoding', 'gzip']]), 200],
      ['active: true', post({ active: true, ...fields }), 200],
      ['charset', formAPost(JSON.stringify(fields), [id], { type: 'application/json; charset=utf-8' }), 200],
      ['wrong password', post({ ...fields, password: 'wrong' }), 401],
      ['unknown token', post({ ...fields, collective_token: 'nope' }), 403],
    ];
    for (const [what, options, status] of cases) {
      const { answer, tookLane } = await both(served, options);
      expect(answer.status, what).toBe(status);
      expect(tookLane, what).toBe(true);
    }
    const all = await both(served, post({ ...fields, active: false }));
    const active = await both(served, post(fields));
    expect(JSON.parse(all.answer.body.toString()).length).toBeGreaterThan(
      JSON.parse(active.answer.body.toString()).length,
    );
  });

  it('leaves every other Form A body to Fastify, which reads it as it came', async () => {
    const served = await start();
    const { seed } = served;
    const id: [string, string] = ['x-request-id', 'lane-test-6'];
    const post = (body: string, type?: string, length?: boolean) => formAPost(body, [id], { type, length });
    const fields = formAFields(seed);
    const json = JSON.stringify(fields);
    const cases: [string, Parameters<typeof send>[1], number, boolean][] = [
      ['another field', post(JSON.stringify({ ...fields, note: 'x' })), 200, false],
      ['active as text', post(JSON.stringify({ ...fields, active: 'false' })), 400, false],
      ['a secret too long', post(JSON.stringify({ ...fields, password: 'x'.repeat(257) })), 400, false],
      [
        'a field missing',
        post(JSON.stringify({ username: seed.username, password: seed.password })),
        400,
        false,
      ],
      ['not JSON', post('{"username": '), 400, false],
      ['an empty body', post(''), 400, false],
      ['an array', post('[]'), 400, false],
      ['a prototype key', post(JSON.stringify(fields).replace('{', '{"__proto__": {"x": 1}, ')), 200, false],
      ['text/plain', post(json, 'text/plain'), 200, false],
      [
        'a form',
        post(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded'),
        200,
        false,
      ],
      ['chunked', formAPost(json, [id, ['transfer-encoding', 'chunked']], { length: false }), 200, false],
      ['a large body', post(JSON.stringify({ ...fields, padding: 'x'.repeat(5000) })), 200, false],
    ];
    for (const [what, options, status] of cases) {
      const { answer, tookLane } = await both(served, options);
      expect(answer.status, what).toBe(status);
      expect(tookLane, what).toBe(false);
    }
  });

  it('leaves a Form A body over --body-limit to Fastify, which refuses it with 413', async () => {
    const served = await start({ bodyLimit: 100 });
    const body = JSON.stringify({ ...formAFields(served.seed), username: 'u'.repeat(60) });
    const { answer, tookLane } = await both(served, formAPost(body, [['x-request-id', 'lane-test-10']]));
    expect(answer.status).toBe(413);
    expect(tookLane).toBe(false);
  });

  it('a client that leaves in the middle of a Form A body is neither answered nor counted', async () => {
    const served = await start({ rateLimitAddress: { ratePerSecond: 0.001, burst: 10 } });
    const { port } = new URL(served.lane.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /menu HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
      socket.on('error', reject);
    });
    const { answer } = await both(served, {
      headers: [...credentials(served.seed), ['x-request-id', 'lane-test-8']],
    });
    expect(answer.status).toBe(200);
    // The first request that was counted in the address bucket.
    expect(answer.headers.ratelimit).toMatch(/^"address";r=9;/);
    const metrics = (await send(served.lane.url, { path: '/metrics' })).body.toString();
    expect(metrics).toMatch(/^menu_api_http_requests_in_flight 1$/m);
  });

  it('counts each request once in the address and credential buckets, and the login guard once', async () => {
    const served = await start({
      rateLimitAddress: { ratePerSecond: 0.01, burst: 6 },
      rateLimitCredential: { ratePerSecond: 0.01, burst: 3 },
      loginGuard: { ...DEFAULTS.loginGuard, perPair: 2 },
    });
    const { seed } = served;
    const id: [string, string] = ['x-request-id', 'lane-test-3'];
    const read = { headers: [...credentials(seed), id] };
    const wrong = { headers: [...credentials(seed, { password: 'wrong' }), id] };
    const sequence = [wrong, wrong, wrong, read, read, { ...read, path: '/menu?x=1' }, read, read];
    const seen: string[] = [];
    for (const options of sequence) {
      const { answer } = await both(served, options);
      seen.push(`${answer.status} ${hundreds(String(answer.headers.ratelimit ?? ''))}`);
    }
    // Two failures open the guard's refusal for the pair (429), then the right password is let
    // through by the guard; the credential's bucket (3) and the address's (6) run out one per request.
    expect(seen).toEqual([
      '401 "address";r=5;t=100',
      '401 "address";r=4;t=200',
      '429 "address";r=3;t=300',
      expect.stringMatching(/^(200|429) "address";r=2;t=400/),
      expect.stringMatching(/^(200|429) "address";r=1;t=500/),
      '400 "address";r=0;t=600',
      expect.stringMatching(/^429 "address";r=0;t=\d+$/),
      expect.stringMatching(/^429 "address";r=0;t=\d+$/),
    ]);
  });

  it('with the limits in Redis, answers once Redis has (the lane answers later, not at once)', async () => {
    const served = await start({
      redisUrl: 'redis://127.0.0.1:6379',
      rateLimitAddress: { ratePerSecond: 0.001, burst: 2 },
    });
    const id: [string, string] = ['x-request-id', 'lane-test-9'];
    const formA = formAPost(JSON.stringify(formAFields(served.seed)), [id]);
    expect(
      await addressStates(served, [{ headers: [...credentials(served.seed), id] }, formA, formA]),
    ).toEqual(['200 "address";r=1;t=1000', '200 "address";r=0;t=2000', '429 "address";r=0;t=1000']);
  });

  it('behind a trusted proxy, counts the address X-Forwarded-For names, as Fastify does', async () => {
    const served = await start({
      trustProxy: ['127.0.0.1', '::1'],
      rateLimitAddress: { ratePerSecond: 0.001, burst: 3 },
    });
    const id: [string, string] = ['x-request-id', 'lane-test-7'];
    const from = (address: string) => ({
      headers: [...credentials(served.seed), id, ['x-forwarded-for', address]] as [string, string][],
    });
    const forwardedFor = ['203.0.113.7', '203.0.113.7', '198.51.100.2', '203.0.113.7', '203.0.113.7'];
    expect(await addressStates(served, forwardedFor.map(from))).toEqual([
      '200 "address";r=2;t=1000',
      '200 "address";r=1;t=2000',
      '200 "address";r=2;t=1000',
      '200 "address";r=0;t=3000',
      '429 "address";r=0;t=1000',
    ]);
    const addresses = served.lane.lines.map((line) => line.address);
    expect(addresses).toEqual(served.plain.lines.map((line) => line.address));
    expect(addresses).toContain('198.51.100.2');
  });

  it('steps aside while the app drains: Fastify answers with Connection: close', async () => {
    const served = await start();
    startDraining(served.lane.runtime.app);
    const before = served.lane.fastifyAnswers;
    const answer = await send(served.lane.url, { headers: credentials(served.seed) });
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe('close');
    expect(served.lane.fastifyAnswers).toBe(before + 1);
  });

  it('counts its answers in the metrics and writes the same request line', async () => {
    const served = await start();
    const { seed } = served;
    const id: [string, string] = ['x-request-id', 'lane-test-4'];
    for (const headers of [
      [...credentials(seed), id],
      [...credentials(seed), id, ['accept-encoding', 'gzip']],
      [...credentials(seed, { password: 'wrong' }), id],
      [...credentials(seed, { store: 'nope' }), id],
    ] as [string, string][][]) {
      const { tookLane } = await both(served, { headers });
      expect(tookLane).toBe(true);
    }
    for (const headers of [v1Credentials(seed), v1Credentials(seed, { password: 'wrong' })]) {
      const { tookLane } = await both(served, { path: '/v1/menu?limit=2', headers: [...headers, id] });
      expect(tookLane).toBe(true);
    }
    const counted = async (target: Served) => {
      const lines = (await send(target.url, { path: '/metrics' })).body.toString().split('\n');
      // Whether a snapshot read is a hit or a miss depends on when each server's change feed saw the
      // seed's menu, not on the path that read it: what must be equal is how many reads each view had.
      const snapshotReads = new Map<string, number>();
      for (const line of lines) {
        const read = /^menu_api_snapshot_cache_(?:hits|misses)_total\{view="([^"]+)"\} (\d+)$/.exec(line);
        if (read) snapshotReads.set(read[1]!, (snapshotReads.get(read[1]!) ?? 0) + Number(read[2]));
      }
      return lines
        .filter((line) =>
          /^menu_api_(http_requests_total|http_requests_in_flight|auth_failures_total|snapshot_bytes_served_total|http_request_duration_seconds_count)\b/.test(
            line,
          ),
        )
        .filter((line) => !line.includes('/metrics'))
        .concat([...snapshotReads].map(([view, reads]) => `snapshot reads ${view} ${reads}`))
        .sort();
    };
    const laneMetrics = await counted(served.lane);
    expect(laneMetrics).toEqual(await counted(served.plain));
    expect(laneMetrics).toContain('menu_api_http_requests_total{method="GET",route="/menu",status="200"} 2');
    // The scrape itself is in flight.
    expect(laneMetrics).toContain('menu_api_http_requests_in_flight 1');
    expect(laneMetrics).toContain('snapshot reads b:menu:both 2');
    const line = (entry: Record<string, unknown>) => {
      const { time: _time, ms, pid: _pid, ...rest } = entry;
      expect(typeof ms).toBe('number');
      return rest;
    };
    const menuLines = (target: Served) => target.lines.filter((entry) => entry.route === '/menu').map(line);
    expect(menuLines(served.lane)).toHaveLength(4);
    expect(menuLines(served.lane)).toEqual(menuLines(served.plain));
    expect(menuLines(served.lane)[0]).toMatchObject({
      reqId: 'lane-test-4',
      username: seed.username,
      status: 200,
    });
  });
});
