import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  brandOf,
  CursorExpiredError,
  type FormAItem,
  type FormBItem,
  MenuApiError,
  MenuClient,
  type MenuClientOptions,
  pricesOf,
  type V1Item,
  type V1ItemFields,
  type V1MenuPage,
  type V1MenuQuery,
} from '../../src/client/index.js';
import { parseRetryAfter, retryDelay } from '../../src/client/retry.js';
import { DEFAULTS } from '../../src/config.js';
import type { V1_MENU_PARAMETERS } from '../../src/forms/form-v1/parameters.js';
import { createRuntime } from '../../src/server/runtime.js';
import { REPOSITORY } from '../helpers/cli.js';
import { contractCheck } from '../helpers/contract.js';
import { UUID } from '../helpers/http.js';
import {
  GENEROUS_LIMITS,
  SAMPLE_MENU,
  TEST_SCRYPT,
  type TestRuntime,
  testRuntime,
} from '../helpers/runtime.js';

/** A tiny HTTP server answering with `handler`, for what the real server does not do on demand. */
async function stubServer(
  handler: (request: IncomingMessage, response: ServerResponse, count: number) => void,
): Promise<{ url: string; requests: IncomingMessage[]; close(): Promise<void> }> {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request);
    handler(request, response, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Form B client of `stub`, with `options` over the credentials every stub test uses. */
function clientOf(
  stub: { url: string },
  options: Omit<MenuClientOptions<'B'>, 'baseUrl' | 'username' | 'password' | 'form'> = {},
): MenuClient<'B'> {
  return new MenuClient({ baseUrl: stub.url, username: 'u', password: 'p', form: 'B', ...options });
}

const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
};

const unavailable = { error: { code: 'unavailable', message: 'Try later.', request_id: 'stub-1' } };

async function failure(promise: Promise<unknown>): Promise<MenuApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(MenuApiError);
  return error as MenuApiError;
}

describe('MenuClient against the real server', () => {
  let runtime: TestRuntime;
  let baseUrl: string;

  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    baseUrl = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => runtime.close());

  const client = <F extends 'A' | 'B'>(form: F, overrides: { password?: string } = {}) =>
    new MenuClient({
      baseUrl,
      username: runtime.seed.username,
      password: overrides.password ?? runtime.seed.password,
      form,
    });

  it('Form A: the active items, typed; with {active: false} every item with its flag', async () => {
    const items: FormAItem[] = await client('A').menu(runtime.seed.token);
    expect(items.map((item) => item.name)).toEqual(['Fudge Brownie', 'Blue Dream', 'Vape Cart']);
    const blue = items.find((item) => item.id === 3)!;
    expect(blue.brand_name).toBe('Emerald Farms');
    expect(blue.product_prices[0]).toEqual({ unit: 'gram', amount: 1, price: 12 });
    const all = await client('A').menu(runtime.seed.token, { active: false });
    expect(all.map((item) => [item.name, item.active])).toContainEqual(['Hidden Kush', false]);
  });

  it('Form B: the active items with stock, either spelling readable', async () => {
    const items: FormBItem[] = await client('B').menu(runtime.seed.token);
    expect(items.map((item) => item.name)).toEqual(['Fudge Brownie', 'Blue Dream', 'Vape Cart']);
    const blue = items.find((item) => item.id === 3)!;
    expect(brandOf(blue)).toBe('Emerald Farms');
    expect(pricesOf(blue)[0]).toEqual({ unit: 'gram', amount: 1, price: 12, stock: 10 });
    await expect(client('B').menu(runtime.seed.token, { active: false })).rejects.toThrow(TypeError);
  });

  it('store information and inventory in both forms, inventory with since', async () => {
    for (const form of ['A', 'B'] as const) {
      const store = await client(form).store(runtime.seed.token);
      expect(store.name).toBe('Test Collective');
      expect(store.currency).toBe('USD');
      const inventory = await client(form).inventory(runtime.seed.token);
      expect(inventory).toContainEqual(
        expect.objectContaining({ item_id: 3, unit: 'ounce', amount: 0.125, stock: 0, in_stock: false }),
      );
      const future = new Date(Date.now() + 3_600_000);
      expect(await client(form).inventory(runtime.seed.token, { since: future })).toEqual([]);
    }
  });

  it('errors are MenuApiError with status, code, message and the request id', async () => {
    for (const form of ['A', 'B'] as const) {
      const wrongPassword = await failure(client(form, { password: 'wrong' }).menu(runtime.seed.token));
      expect(wrongPassword.status).toBe(401);
      expect(wrongPassword.code).toBe('invalid_credentials');
      expect(wrongPassword.requestId).toMatch(UUID);
      expect(wrongPassword.message).toMatch(/username or password is wrong/);

      const wrongToken = await failure(client(form).store('not-a-token'));
      expect(wrongToken.status).toBe(403);
      expect(wrongToken.code).toBe('invalid_token');

      const badSince = await failure(client(form).inventory(runtime.seed.token, { since: 'yesterday' }));
      expect(badSince.status).toBe(400);
      expect(badSince.code).toBe('invalid_request');
      expect(badSince.problems).toEqual([{ field: 'since', message: 'must be an RFC 3339 time' }]);
    }
  });

  it('Form B revalidates with the ETag the server sent (If-None-Match) and reuses the body on 304', async () => {
    const statuses: number[] = [];
    const sent: (string | null)[] = [];
    const recording = new MenuClient({
      baseUrl,
      username: runtime.seed.username,
      password: runtime.seed.password,
      form: 'B',
      fetch: async (input, init) => {
        sent.push(new Headers(init?.headers).get('if-none-match'));
        const response = await fetch(input, init);
        statuses.push(response.status);
        return response;
      },
    });
    const first = await recording.menu(runtime.seed.token);
    const second = await recording.menu(runtime.seed.token);
    expect(second).toEqual(first);
    expect(sent[0]).toBeNull();
    expect(statuses[0]).toBe(200);
    expect(sent[1]).toMatch(/^"[^"]+"$/);
    expect(statuses[1]).toBe(304);
  });

  describe('Form v1 (client.v1(token))', () => {
    const v1 = (overrides: { password?: string; fetch?: typeof fetch } = {}, token = runtime.seed.token) =>
      new MenuClient({
        baseUrl,
        username: runtime.seed.username,
        password: overrides.password ?? runtime.seed.password,
        form: 'B',
        ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
      }).v1(token);

    it('its filters are exactly the parameters /v1/menu takes (checked by the type checker)', () => {
      expectTypeOf<keyof V1MenuQuery>().toEqualTypeOf<keyof typeof V1_MENU_PARAMETERS>();
      // Whole items unless the query may name fields.
      const reader = v1();
      expectTypeOf(reader.menu<{ sort: 'name' }>).returns.toEqualTypeOf<Promise<V1MenuPage<V1Item>>>();
      expectTypeOf(reader.menu<{ fields: string[] }>).returns.toEqualTypeOf<
        Promise<V1MenuPage<V1ItemFields>>
      >();
      expectTypeOf(reader.menu<V1MenuQuery>).returns.toEqualTypeOf<Promise<V1MenuPage<V1ItemFields>>>();
    });

    it('menu(query): one page, the typed filters sent as the form’s parameters, with facets and fields', async () => {
      const page = await v1().menu({
        product_type: ['Flower', 'Vape'],
        sort: '-price',
        facets: ['product_type'],
      });
      expect(page.data.map((item) => item.id)).toEqual([7, 3]);
      expect(page.total).toBe(2);
      expect(page.next_cursor).toBeNull();
      expect(page.facets).toEqual({ product_type: { Flower: 1, Vape: 1 } });
      const blue = page.data[1]!;
      expect(blue.brand).toBe('Emerald Farms');
      expect(blue.prices[0]).toMatchObject({ unit: 'gram', price: 12, effective_price: 12, special: null });

      const slim = await v1().menu({
        in_stock: true,
        price_max: 20,
        on_special: false,
        fields: ['id', 'name'],
      });
      expect(slim.data).toEqual([{ id: 3, name: 'Blue Dream' }]);
      expect((await v1().menu({ active: false })).data.map((item) => item.name)).toEqual(['Hidden Kush']);
      expect((await v1().menu({ active: 'all', q: 'blue dr' })).data.map((item) => item.id)).toEqual([3]);
      const future = new Date(Date.now() + 3_600_000);
      expect((await v1().menu({ updated_since: future })).total).toBe(0);
    });

    it('pages(query): every page, first to last, following next_cursor', async () => {
      const pages: number[][] = [];
      for await (const page of v1().pages({ limit: 1, sort: 'name', fields: ['id'] }))
        pages.push(page.data.map((item) => item.id!));
      expect(pages).toEqual([[3], [1], [7]]);
      const rest: number[][] = [];
      const first = await v1().menu({ limit: 2 });
      for await (const page of v1().pages({ limit: 2, cursor: first.next_cursor! }))
        rest.push(page.data.map((item) => item.id));
      expect(rest).toEqual([[7]]);
    });

    it('item(id), store(), inventory({since}), specials() and changes(cursor)', async () => {
      const item: V1Item = await v1().item(3);
      expect(item).toMatchObject({ id: 3, name: 'Blue Dream', potency: expect.any(Object) });
      expect((await v1().item(2)).active).toBe(false);
      expect((await v1().store()).name).toBe('Test Collective');
      expect(await v1().inventory()).toContainEqual(
        expect.objectContaining({ item_id: 3, unit: 'ounce', amount: 0.125, stock: 0, in_stock: false }),
      );
      expect(await v1().inventory({ since: new Date(Date.now() + 3_600_000) })).toEqual([]);
      expect(await v1().specials()).toEqual([]);

      const first = await v1().changes(undefined, { limit: 1 });
      expect(first.changes).toHaveLength(1);
      expect(first.has_more).toBe(true);
      const next = await v1().changes(first.next_cursor, { limit: 1000 });
      expect(next.changes[0]!.cursor > first.next_cursor).toBe(true);
      const upserted = next.changes.find((change) => change.item_id === 3)!;
      expect(upserted.item?.prices[0]).toMatchObject({ price: 12, effective_price: 12 });
      expect(next.has_more).toBe(false);
    });

    it('errors are MenuApiError, as in Forms A and B', async () => {
      const wrongPassword = await failure(v1({ password: 'wrong' }).menu());
      expect(wrongPassword).toMatchObject({ status: 401, code: 'invalid_credentials' });
      expect(wrongPassword.requestId).toMatch(UUID);
      expect(await failure(v1({}, 'not-a-token').store())).toMatchObject({
        status: 403,
        code: 'invalid_token',
      });
      const missing = await failure(v1().item('ext:pos-404'));
      expect(missing).toMatchObject({ status: 404, code: 'not_found' });
      expect(missing.message).toMatch(/ext:pos-404/);
      const tooMany = await failure(v1().menu({ limit: 5000 }));
      expect(tooMany).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(tooMany.problems).toEqual([{ field: 'limit', message: 'is "5000"' }]);
      expect(await failure(v1().menu({ cursor: 'tampered' }))).toMatchObject({ status: 400 });
      expect(await failure(v1().changes('0000000000000000', { limit: 0 }))).toMatchObject({ status: 400 });
    });

    it('sends HTTP Basic and Dispensary-Token, and revalidates with the ETag (304 reuses the body)', async () => {
      const sent: Headers[] = [];
      const statuses: number[] = [];
      const reader = v1({
        fetch: async (input, init) => {
          sent.push(new Headers(init?.headers));
          const response = await fetch(input, init);
          statuses.push(response.status);
          return response;
        },
      });
      const first = await reader.menu({ sort: 'name' });
      const second = await reader.menu({ sort: 'name' });
      expect(second).toEqual(first);
      expect(statuses).toEqual([200, 304]);
      const basic = `${runtime.seed.username}:${runtime.seed.password}`;
      expect(sent[0]!.get('authorization')).toBe(`Basic ${Buffer.from(basic).toString('base64')}`);
      expect(sent[0]!.get('dispensary-token')).toBe(runtime.seed.token);
      expect(sent[0]!.get('if-none-match')).toBeNull();
      expect(sent[1]!.get('if-none-match')).toMatch(/^"[^"]+"$/);
      // The change feed is never revalidated: each page is read afresh.
      await reader.changes();
      await reader.changes();
      expect(sent.slice(2).map((headers) => headers.get('if-none-match'))).toEqual([null, null]);
    });
  });

  it('v1 pages(): a page asked where its menu version is not kept throws CursorExpiredError; pages(query) again starts over', async () => {
    // A second server process over the same database (a restart, or another instance behind a balancer
    // that does not share its memory) never kept the version the first page was read from.
    const other = await createRuntime(
      { ...DEFAULTS, database: runtime.database, databasePoolSize: 2, ...GENEROUS_LIMITS },
      { logger: false, scryptCost: TEST_SCRYPT, contractCheck },
    );
    const otherUrl = await other.app.listen({ host: '127.0.0.1', port: 0 });
    const { dispensaryId } = runtime.seed;
    let asked = 0;
    const balanced = new MenuClient({
      baseUrl,
      username: runtime.seed.username,
      password: runtime.seed.password,
      form: 'B',
      // The first page from this server, the next ones from the other.
      fetch: (input, init) => {
        asked += 1;
        return fetch(asked === 1 ? input : String(input).replace(baseUrl, otherUrl), init);
      },
    }).v1(runtime.seed.token);
    const query = { limit: 1, sort: 'name', fields: ['id'] } as const;
    const seen: number[] = [];
    try {
      const paging = (async () => {
        for await (const page of balanced.pages(query)) {
          seen.push(...page.data.map((item) => item.id!));
          // Vape Cart moves from last to first by name: the first page's version no longer lists alike.
          if (seen.length === 1) await runtime.services.menus.patchItem(dispensaryId, 7, { name: 'Aa Cart' });
        }
      })();
      const expired = await paging.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(expired).toBeInstanceOf(CursorExpiredError);
      expect(expired).toBeInstanceOf(MenuApiError);
      expect(expired).toMatchObject({ status: 410, code: 'cursor_expired', name: 'CursorExpiredError' });
      expect((expired as Error).message).toContain('without cursor');
      expect(seen).toEqual([3]);
      // Started again (on the other server), the paging lists the menu as it is now.
      const again: number[] = [];
      for await (const page of balanced.pages(query)) again.push(...page.data.map((item) => item.id!));
      expect(again).toEqual([7, 3, 1]);
    } finally {
      await runtime.services.menus.patchItem(dispensaryId, 7, { name: 'Vape Cart' });
      await other.close();
    }
  });

  it('a server that is not there is a network_error', async () => {
    const gone = await stubServer(() => undefined);
    await gone.close();
    const error = await failure(
      new MenuClient({ baseUrl: gone.url, username: 'u', password: 'p', form: 'B', retries: 0 }).menu('t'),
    );
    expect(error.status).toBe(0);
    expect(error.code).toBe('network_error');
  });
});

describe('MenuClient retries, timeouts and conditional requests (stub servers)', () => {
  it('retries a 503 after its Retry-After (seconds), then returns the answer', async () => {
    const stub = await stubServer((_request, response, count) => {
      if (count === 1) json(response, 503, unavailable, { 'retry-after': '1' });
      else json(response, 200, [{ id: 1, name: 'Blue Dream' }]);
    });
    try {
      const started = performance.now();
      const items = await clientOf(stub, { retryBaseMs: 50 }).menu('t');
      const elapsed = performance.now() - started;
      expect(items).toEqual([{ id: 1, name: 'Blue Dream' }]);
      expect(stub.requests).toHaveLength(2);
      expect(elapsed).toBeGreaterThanOrEqual(990);
      expect(elapsed).toBeLessThan(1_500);
    } finally {
      await stub.close();
    }
  });

  it('retries a 429 after its Retry-After given as an HTTP date', async () => {
    const stub = await stubServer((request, response, count) => {
      if (count === 1) {
        const at = new Date(Date.now() + 2_000).toUTCString();
        json(
          response,
          429,
          { error: { code: 'rate_limited', message: 'Slow down.', request_id: 'r' } },
          {
            'retry-after': at,
          },
        );
      } else {
        let body = '';
        request.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        request.on('end', () => json(response, 200, { name: 'Demo', echoed: JSON.parse(body) }));
      }
    });
    try {
      const started = Date.now();
      const store = (await new MenuClient({
        baseUrl: stub.url,
        username: 'u',
        password: 'p',
        form: 'A',
        retryBaseMs: 10,
      }).store('t')) as unknown as { echoed: Record<string, string> };
      // An HTTP date has whole seconds: two seconds ahead is more than one second of waiting.
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      expect(stub.requests).toHaveLength(2);
      expect(store.echoed).toEqual({ username: 'u', password: 'p', collective_token: 't' });
      expect(stub.requests[0]!.method).toBe('POST');
    } finally {
      await stub.close();
    }
  });

  it('gives up after `retries` further attempts with backoff, and throws the last error', async () => {
    const stub = await stubServer((_request, response) => json(response, 503, unavailable));
    try {
      const error = await failure(clientOf(stub, { retries: 2, retryBaseMs: 5 }).menu('t'));
      expect(stub.requests).toHaveLength(3);
      expect(error.status).toBe(503);
      expect(error.code).toBe('unavailable');
      expect(error.requestId).toBe('stub-1');
    } finally {
      await stub.close();
    }
  });

  it('does not wait a Retry-After longer than maxRetryDelayMs: the error says how long', async () => {
    const stub = await stubServer((_request, response) =>
      json(response, 429, unavailable, { 'retry-after': '120' }),
    );
    try {
      const error = await failure(clientOf(stub, { maxRetryDelayMs: 5_000 }).menu('t'));
      expect(stub.requests).toHaveLength(1);
      expect(error.status).toBe(429);
      expect(error.retryAfterMs).toBe(120_000);
    } finally {
      await stub.close();
    }
  });

  it('does not retry other errors', async () => {
    const stub = await stubServer((_request, response) =>
      json(response, 500, { error: { code: 'internal_error', message: 'Oops.', request_id: 'x' } }),
    );
    try {
      const error = await failure(clientOf(stub).menu('t'));
      expect(stub.requests).toHaveLength(1);
      expect(error.code).toBe('internal_error');
    } finally {
      await stub.close();
    }
  });

  it('times out an attempt that gets no answer', async () => {
    const stub = await stubServer(() => undefined);
    try {
      const started = performance.now();
      const error = await failure(clientOf(stub, { timeoutMs: 200 }).menu('t'));
      expect(error.code).toBe('timeout');
      expect(error.status).toBe(0);
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      await stub.close();
    }
  });

  it('sends If-None-Match with the last ETag on Form B and returns the kept body on 304', async () => {
    const stub = await stubServer((request, response) => {
      if (request.headers['if-none-match'] === '"v1"') {
        response.writeHead(304, { etag: '"v1"' });
        response.end();
        return;
      }
      json(response, 200, [{ id: 1, name: 'Blue Dream' }], { etag: '"v1"' });
    });
    try {
      const client = clientOf(stub);
      const first = await client.menu('t');
      const second = await client.menu('t');
      expect(second).toEqual(first);
      expect(second).not.toBe(first); // a fresh copy: changing one answer does not change the next
      expect(stub.requests.map((request) => request.headers['if-none-match'] ?? null)).toEqual([
        null,
        '"v1"',
      ]);
      expect(stub.requests[0]!.headers).toMatchObject({ store: 't', username: 'u', password: 'p' });
      // Another token is another answer: nothing is reused across dispensaries.
      await client.menu('other');
      expect(stub.requests[2]!.headers['if-none-match']).toBeUndefined();
    } finally {
      await stub.close();
    }
  });

  it('works with a server that sends no ETag: no If-None-Match, every answer fresh', async () => {
    const stub = await stubServer((_request, response, count) => json(response, 200, [{ id: count }]));
    try {
      const client = clientOf(stub);
      expect(await client.menu('t')).toEqual([{ id: 1 }]);
      expect(await client.menu('t')).toEqual([{ id: 2 }]);
      expect(stub.requests.every((request) => request.headers['if-none-match'] === undefined)).toBe(true);
    } finally {
      await stub.close();
    }
  });

  it('keeps a path prefix of the base URL and sends since as a query parameter on Form B', async () => {
    const stub = await stubServer((_request, response) => json(response, 200, []));
    try {
      const client = new MenuClient({
        baseUrl: `${stub.url}/api/v2`,
        username: 'u',
        password: 'p',
        form: 'B',
      });
      await client.inventory('t', { since: '2026-11-25T12:00:00Z' });
      expect(stub.requests[0]!.url).toBe('/api/v2/inventory?since=2026-11-25T12%3A00%3A00Z');
    } finally {
      await stub.close();
    }
  });
});

describe('retry arithmetic', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('Wed, 25 Nov 2026 12:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Wed, 25 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('backs off exponentially with full jitter, capped, and honours Retry-After', () => {
    const policy = (random: number) => ({ retries: 5, baseMs: 100, maxDelayMs: 1_000, random: () => random });
    expect(retryDelay(policy(0.999), 0, undefined)).toBeCloseTo(99.9);
    expect(retryDelay(policy(0.999), 2, undefined)).toBeCloseTo(399.6);
    expect(retryDelay(policy(0.999), 4, undefined)).toBeCloseTo(999); // capped at maxDelayMs
    expect(retryDelay(policy(0), 3, undefined)).toBe(0); // full jitter: anything from zero
    expect(retryDelay(policy(0), 0, 700)).toBe(700); // never sooner than Retry-After
    expect(retryDelay(policy(0.5), 0, 700)).toBe(750);
    expect(retryDelay(policy(0.5), 0, 2_000)).toBeUndefined(); // beyond the cap: give up
    expect(retryDelay(policy(0.5), 5, undefined)).toBeUndefined(); // out of retries
  });
});

describe('the published client', () => {
  const dist = join(REPOSITORY, 'dist', 'client');

  it('is the package export dispensary-menu-api/client (and the package root)', () => {
    const require = createRequire(join(REPOSITORY, 'package.json'));
    expect(require.resolve('dispensary-menu-api/client')).toBe(join(dist, 'index.js'));
    expect(require.resolve('dispensary-menu-api')).toBe(join(dist, 'index.js'));
  });

  it('loads nothing at run time but its own modules (the types come from the server at compile time only)', () => {
    expect(existsSync(dist), 'dist/client is missing: run `npm run build`').toBe(true);
    const files = readdirSync(dist).filter((file) => file.endsWith('.js'));
    expect(files).toContain('index.js');
    for (const file of files) {
      const source = readFileSync(join(dist, file), 'utf8');
      const imports = [...source.matchAll(/^(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm)].map(
        (match) => match[1],
      );
      expect(source).not.toMatch(/\brequire\(|\bimport\(/);
      for (const specifier of imports)
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[a-z0-9-]+\.js$/);
    }
  });
});
