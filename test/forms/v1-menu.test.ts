import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/forms/form-v1/cursor.js';
import { FIELD_NAMES } from '../../src/forms/form-v1/item.js';
import { v1Menu } from '../../src/forms/form-v1/menu.js';
import { PinnedMenus } from '../../src/forms/form-v1/pinned-menus.js';
import { orderKey, parseMenuQuery } from '../../src/forms/form-v1/query.js';
import { SearchIndex, WEIGHTS } from '../../src/forms/form-v1/search-index.js';
import { MenuReader } from '../../src/services/menu-reader.js';
import { basicAuthorization } from '../helpers/basic-auth.js';
import { type EventStreamClient, openEvents } from '../helpers/events.js';
import { UUID } from '../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';
import { listening } from './driver.js';
import {
  arbitraryMenu,
  arbitraryQuery,
  asQuery,
  type Input,
  type Query,
  toItems,
  v1Auth,
} from './v1-arbitraries.js';

/** Form v1 over real HTTP: `GET /v1/menu` with HTTP Basic and Dispensary-Token. */
describe('Form v1: GET /v1/menu', () => {
  let runtime: TestRuntime;
  let base: string;
  let auth: Record<string, string>;
  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    base = await listening(runtime.app);
    auth = v1Auth(runtime.seed);
  });
  afterAll(() => runtime.close());

  const get = (query = '', headers: Record<string, string> = auth) =>
    fetch(`${base}/v1/menu${query}`, { headers: { 'accept-encoding': 'identity', ...headers } });

  it('answers a kept page in the same turn once it is compressed, not through a promise', async () => {
    // A menu of its own: the app's keeps its answers already.
    const menu = v1Menu({ menus: new MenuReader(runtime.services.store, runtime.feed) });
    const view = menu.view(Object.freeze({ active: 'all' }));
    const first = view.read(runtime.seed.dispensaryId, 'gzip');
    expect(first).toBeInstanceOf(Promise);
    const compressed = await first;
    expect(compressed.encoding).toBe('gzip');
    expect(view.read(runtime.seed.dispensaryId, 'gzip')).toBe(compressed);
  });

  it('answers the active items in the canonical shape with the derived figures, paged', async () => {
    const response = await get();
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Record<string, unknown>[]; total: number };
    expect(Object.keys(body)).toEqual(['data', 'next_cursor', 'total', 'facets']);
    expect(body.data.map((item) => item.id)).toEqual([1, 3, 7]);
    expect(body.total).toBe(3);
    const blue = body.data[1]!;
    expect(blue).toMatchObject({
      name: 'Blue Dream',
      brand: 'Emerald Farms',
      product_type: 'Flower',
      active: true,
    });
    expect(blue).toHaveProperty('potency');
    expect(blue).toHaveProperty('external_id');
    expect(blue.prices).toMatchObject([
      { unit: 'gram', amount: 1, price: 12, net_weight_g: 1, price_per_gram: 12 },
      { unit: 'ounce', amount: 0.125, price: 38.5, net_weight_g: 3.5, price_per_gram: 11 },
    ]);
  });

  it('pages with a cursor and a Link header, with a strong ETag per query and 304', async () => {
    const first = await get('?limit=2');
    const page = (await first.json()) as { data: { id: number }[]; next_cursor: string };
    expect(page.data.map((item) => item.id)).toEqual([1, 3]);
    expect(first.headers.get('link')).toBe(`</v1/menu?limit=2&cursor=${page.next_cursor}>; rel="next"`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await get('?limit=1')).headers.get('etag')).not.toBe(etag);
    expect((await get('?limit=2', { ...auth, 'if-none-match': etag })).status).toBe(304);
    const second = (await (await get(`?limit=2&cursor=${page.next_cursor}`)).json()) as {
      data: { id: number }[];
      next_cursor: null;
    };
    expect(second.data.map((item) => item.id)).toEqual([7]);
    expect(second.next_cursor).toBeNull();
  });

  it('sends gzip when asked', async () => {
    const response = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const sent = request(
          `${base}/v1/menu?active=all`,
          { headers: { ...auth, 'accept-encoding': 'gzip' } },
          (answer) => {
            const chunks: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => chunks.push(chunk));
            answer.on('end', () =>
              resolve({ encoding: answer.headers['content-encoding'], body: Buffer.concat(chunks) }),
            );
          },
        );
        sent.on('error', reject);
        sent.end();
      }, reject);
    });
    expect(response.encoding).toBe('gzip');
    expect(JSON.parse(gunzipSync(response.body).toString()).total).toBe(4);
  });

  it('refuses credentials as Form B does, with the same error body', async () => {
    const wrong = { ...auth, authorization: basicAuthorization('integrator:nope') };
    const v1 = await get('', wrong);
    const b = await fetch(`${base}/menu`, {
      headers: { store: runtime.seed.token, username: 'integrator', password: 'nope' },
    });
    expect(v1.status).toBe(401);
    const strip = (body: { error: { code: string; message: string } }) => [
      body.error.code,
      body.error.message,
    ];
    expect(strip((await v1.json()) as never)).toEqual(strip((await b.json()) as never));
    expect((await get('', { ...auth, 'dispensary-token': 'not-a-token' })).status).toBe(403);
    expect((await get('', { 'dispensary-token': runtime.seed.token })).status).toBe(400);
  });

  it.each([
    ['?colour=green', 'colour'],
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?thc_min=abc', 'thc_min'],
    ['?thc_min=30&thc_max=10', 'thc_min'],
    ['?price_max=-1', 'price_max'],
    ['?in_stock=false', 'in_stock'],
    ['?staff_pick=yes', 'staff_pick'],
    ['?active=maybe', 'active'],
    ['?menu_type=adult', 'menu_type'],
    ['?sort=colour', 'sort'],
    ['?sort=relevance', 'sort'],
    ['?ids=1,x', 'ids'],
    ['?updated_since=yesterday', 'updated_since'],
    ['?fields=id,colour', 'fields'],
    ['?facets=colour', 'facets'],
    ['?limit=1&limit=2', 'limit'],
    ['?cursor=garbage', 'cursor'],
    ['?on_special=false', 'on_special'],
    ['?potency_unit=g', 'potency_unit'],
  ])('refuses %s with 400 naming %s', async (query, name) => {
    const response = await get(query);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain(name);
  });

  it('refuses a cursor made for another query', async () => {
    const page = (await (await get('?limit=1&sort=name')).json()) as { next_cursor: string };
    const response = await get(`?limit=1&sort=-name&cursor=${page.next_cursor}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'another query',
    );
  });

  it('goes on from another menu version only when the order is the same; else 410, start again', async () => {
    const query = { limit: '1', sort: 'name' };
    const order = orderKey(parseMenuQuery(query, FIELD_NAMES));
    const first = (await (await get('?limit=1&sort=name')).json()) as { next_cursor: string };
    const position = decodeCursor(order, first.next_cursor);
    // A version this process never read (another process's, or one no longer kept).
    const elsewhere = (print: string) =>
      get(`?limit=1&sort=name&cursor=${encodeCursor(order, { ...position, version: 1, print })}`);
    const same = await elsewhere(position.print);
    expect(same.status).toBe(200);
    expect(((await same.json()) as { data: { id: number }[] }).data).toHaveLength(1);
    const moved = await elsewhere('another order');
    expect(moved.status).toBe(410);
    const body = (await moved.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('cursor_expired');
    expect(body.error.message).toContain('Start again: send the same query without cursor.');
  });

  it('answers sparse fieldsets and facets', async () => {
    const body = (await (
      await get('?fields=id,name,prices.price&facets=product_type,brand&ids=3')
    ).json()) as {
      data: unknown[];
      facets: unknown;
    };
    expect(body.data).toEqual([{ id: 3, name: 'Blue Dream', prices: [{ price: 12 }, { price: 38.5 }] }]);
    expect(body.facets).toEqual({ product_type: { Flower: 1 }, brand: { 'Emerald Farms': 1 } });
  });

  it('finds "blue dr" (case- and accent-insensitive, last word a prefix)', async () => {
    const body = (await (await get('?q=BLÜE%20dr&fields=id')).json()) as { data: unknown[] };
    expect(body.data).toEqual([{ id: 3 }]);
  });

  /** The ids a query lists (its first page, by its order). */
  const idsOf = async (query: string) => {
    const response = await get(`${query}&fields=id`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { id: number }[] }).data.map((item) => item.id);
  };

  it('prices each entry under the specials now, and filters and sorts on the effective price', async () => {
    const { specials } = runtime.services;
    const { dispensaryId } = runtime.seed;
    const flower = await specials.create(dispensaryId, {
      name: 'Flower half off',
      kind: 'percent_off',
      value: 50,
      applies_to: { product_types: ['Flower'] },
      menu_type: 'rec',
    });
    const vape = await specials.create(dispensaryId, {
      name: 'Vape at 2',
      kind: 'fixed_price',
      value: 2,
      applies_to: { item_ids: [7] },
    });
    try {
      const blue = (await (await get('?ids=3&fields=id,prices')).json()) as { data: unknown[] };
      expect(blue.data).toEqual([
        {
          id: 3,
          prices: [
            expect.objectContaining({
              price: 12,
              price_per_gram: 12,
              effective_price: 6,
              special: { id: flower.id, name: 'Flower half off', ends_at: null },
              effective_med_price: null,
              med_special: null,
            }),
            expect.objectContaining({ price: 38.5, effective_price: 19.25 }),
          ],
        },
      ]);
      // Shelf prices: Blue Dream 12, brownie 22.99, vape 35; now 6, 22.99 and 2.
      expect(await idsOf('?sort=price')).toEqual([7, 3, 1]);
      expect(await idsOf('?sort=-price')).toEqual([1, 3, 7]);
      // Per gram now: vape 4, Blue Dream 5.5 (19.25 / 3.5 g); the brownie has no weight.
      expect(await idsOf('?sort=price_per_gram')).toEqual([7, 3, 1]);
      expect(await idsOf('?price_max=10')).toEqual([3, 7]);
      expect(await idsOf('?price_min=5&price_max=10')).toEqual([3]);
      expect(await idsOf('?on_special=true')).toEqual([3, 7]);
      // Neither has a medical price: no medical special applies, no medical price is in any range.
      expect(await idsOf('?on_special=true&menu_type=med')).toEqual([]);
      expect(await idsOf('?price_min=0&menu_type=med')).toEqual([]);
    } finally {
      await specials.remove(dispensaryId, flower.id);
      await specials.remove(dispensaryId, vape.id);
    }
    // The specials gone, the prices are the shelf prices again.
    expect(await idsOf('?on_special=true')).toEqual([]);
    expect(await idsOf('?sort=price')).toEqual([3, 1, 7]);
  });

  it('filters by effect (any of them) and by potency in mg per package', async () => {
    expect(await idsOf('?effect=HAPPY,Calm')).toEqual([3]);
    expect(await idsOf('?effect=Calm')).toEqual([]);
    // The brownie's 100 mg of THC is per package; Blue Dream's 21.5 is percent by weight.
    expect(await idsOf('?potency_unit=mg&thc_min=50')).toEqual([1]);
    expect(await idsOf('?thc_min=50')).toEqual([]);
    expect(await idsOf('?potency_unit=mg&thc_max=200&sort=-thc')).toEqual([1]);
  });

  describe('GET /v1/menu/{item_id}', () => {
    const getItem = (ref: string, headers: Record<string, string> = auth) =>
      fetch(`${base}/v1/menu/${ref}`, { headers: { 'accept-encoding': 'identity', ...headers } });

    it('answers one item exactly as the menu lists it, by id or ext:, with an ETag and 304', async () => {
      const listed = ((await (await get('?ids=3')).json()) as { data: unknown[] }).data[0];
      const response = await getItem('3');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(listed);
      const etag = response.headers.get('etag')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(response.headers.get('menu-cursor')).toMatch(/^\d{16}$/);
      expect((await getItem('3', { ...auth, 'if-none-match': etag })).status).toBe(304);
      const head = await fetch(`${base}/v1/menu/3`, { method: 'HEAD', headers: auth });
      expect([head.status, head.headers.get('etag')]).toEqual([200, etag]);
      // Inactive items too: the item says it is inactive.
      expect(((await (await getItem('2')).json()) as { active: boolean }).active).toBe(false);
      const { menus } = runtime.services;
      await menus.patchItem(runtime.seed.dispensaryId, { id: 7 }, { external_id: 'pos-7' });
      const byExternal = await getItem('ext:pos-7');
      expect(byExternal.status).toBe(200);
      expect(((await byExternal.json()) as { id: number }).id).toBe(7);
      // Forms A and B serve their specifications' endpoints only: no /menu/{item_id} there.
      const formB = await fetch(`${base}/menu/3`, {
        headers: {
          store: runtime.seed.token,
          username: runtime.seed.username,
          password: runtime.seed.password,
        },
      });
      expect(formB.status).toBe(404);
    });

    it('answers 404 in the common error body for an item the menu does not have', async () => {
      for (const ref of ['99', 'ext:nobody']) {
        const response = await getItem(ref);
        expect(response.status).toBe(404);
        const body = (await response.json()) as {
          error: { code: string; message: string; request_id: string };
        };
        expect(body.error.code).toBe('not_found');
        expect(body.error.message).toContain(ref);
        expect(body.error.request_id).toBeTruthy();
      }
    });

    it('refuses credentials as /v1/menu does, and a malformed id or unknown parameter with 400', async () => {
      const wrong = { ...auth, authorization: basicAuthorization('integrator:nope') };
      const menu = await get('', wrong);
      const item = await getItem('3', wrong);
      expect(item.status).toBe(401);
      expect(((await item.json()) as { error: unknown }).error).toMatchObject({
        code: ((await menu.json()) as { error: { code: string } }).error.code,
      });
      expect((await getItem('3', { ...auth, 'dispensary-token': 'not-a-token' })).status).toBe(403);
      expect((await getItem('99', { ...auth, 'dispensary-token': 'not-a-token' })).status).toBe(403);
      expect((await getItem('abc')).status).toBe(400);
      expect((await getItem('3?fields=id')).status).toBe(400);
    });
  });

  describe('GET /v1/store, /v1/inventory and /v1/specials, and the refusals of every v1 path', () => {
    const formB = () => ({
      store: runtime.seed.token,
      username: runtime.seed.username,
      password: runtime.seed.password,
    });
    const read = (path: string, headers: Record<string, string> = auth) =>
      fetch(`${base}${path}`, { headers: { 'accept-encoding': 'identity', ...headers } });

    it('answer the bytes Form B answers for /store and /inventory, with an ETag and 304', async () => {
      for (const path of ['/store', '/inventory', '/inventory?since=2020-01-01T00:00:00Z']) {
        const v1 = await read(`/v1${path}`);
        const b = await read(path, formB());
        expect(v1.status, path).toBe(200);
        expect(await v1.text(), path).toBe(await b.text());
      }
      for (const path of ['/v1/store', '/v1/inventory']) {
        const first = await read(path);
        const etag = first.headers.get('etag')!;
        expect(etag, path).toMatch(/^"[^"]+"$/);
        expect(first.headers.get('menu-cursor'), path).toMatch(/^\d{16}$/);
        expect((await read(path, { ...auth, 'if-none-match': etag })).status, path).toBe(304);
      }
      const badSince = await read('/v1/inventory?since=yesterday');
      expect(badSince.status).toBe(400);
      expect(((await badSince.json()) as { error: { message: string } }).error.message).toContain('since');
    });

    it('lists the specials with their targets and schedules, each change at once, and nowhere else', async () => {
      const { specials } = runtime.services;
      const { dispensaryId } = runtime.seed;
      const empty = await read('/v1/specials');
      expect(await empty.json()).toEqual([]);
      const etag = empty.headers.get('etag')!;
      expect((await read('/v1/specials', { ...auth, 'if-none-match': etag })).status).toBe(304);
      const special = await specials.create(dispensaryId, {
        name: 'Weekend flower',
        kind: 'amount_off',
        value: 1.5,
        applies_to: { brands: ['Emerald Farms'] },
        days_of_week: ['saturday', 'sunday'],
      });
      try {
        const listed = await read('/v1/specials', { ...auth, 'if-none-match': etag });
        expect(listed.status).toBe(200);
        expect(await listed.json()).toEqual([
          {
            id: special.id,
            name: 'Weekend flower',
            description: '',
            kind: 'amount_off',
            value: 1.5,
            applies_to: {
              item_ids: [],
              external_ids: [],
              brands: ['Emerald Farms'],
              product_types: [],
              tags: [],
            },
            menu_type: 'both',
            starts_at: null,
            ends_at: null,
            days_of_week: ['saturday', 'sunday'],
            daily_start: null,
            daily_end: null,
            updated_at: special.updatedAt,
          },
        ]);
      } finally {
        await specials.remove(dispensaryId, special.id);
      }
      expect(await (await read('/v1/specials')).json()).toEqual([]);
      // Forms A and B follow specifications without specials: no /specials there.
      expect((await read('/specials', formB())).status).toBe(404);
    });

    it.each(['/v1/menu/3', '/v1/store', '/v1/inventory', '/v1/specials', '/v1/changes'])(
      '%s refuses a missing, wrong or revoked credential and a wrong token as /v1/menu does',
      async (path) => {
        const wrong = {
          ...auth,
          authorization: basicAuthorization('integrator:nope'),
        };
        const codes = async (response: Response) => [
          response.status,
          ((await response.json()) as { error: { code: string } }).error.code,
        ];
        expect(await codes(await read(path, wrong))).toEqual(await codes(await get('', wrong)));
        const token = { ...auth, 'dispensary-token': 'not-a-token' };
        expect(await codes(await read(path, token))).toEqual([403, 'invalid_token']);
        const missing = { 'dispensary-token': runtime.seed.token };
        expect(await codes(await read(path, missing))).toEqual(await codes(await get('', missing)));
        const issued = await runtime.services.credentials.issue(`revoked${path.replaceAll('/', '-')}`);
        const own = {
          ...auth,
          authorization: basicAuthorization(`${issued.username}:${issued.password}`),
        };
        expect((await read(path, own)).status).toBe(200);
        await runtime.services.credentials.revoke(issued.username);
        expect(await codes(await read(path, own))).toEqual(await codes(await get('', wrong)));
        expect((await read(`${path}?colour=green`)).status).toBe(400);
      },
    );
  });

  describe('GET /v1/changes', () => {
    type Change = { cursor: string; type: string; item_id: number | null; item: unknown; reason: unknown };
    const changes = async (query: string, headers: Record<string, string> = auth) => {
      const response = await fetch(`${base}/v1/changes${query}`, { headers });
      return { status: response.status, body: (await response.json()) as { changes: Change[] } };
    };

    it('lists the feed as Form B does, each item as /v1/menu lists it, priced now', async () => {
      const { specials } = runtime.services;
      const { dispensaryId } = runtime.seed;
      const special = await specials.create(dispensaryId, {
        name: 'Flower half off',
        kind: 'percent_off',
        value: 50,
        applies_to: { product_types: ['Flower'] },
      });
      try {
        const v1 = await changes('?limit=1000');
        expect(v1.status).toBe(200);
        expect(Object.keys(v1.body)).toEqual(['changes', 'next_cursor', 'has_more']);
        const b = (await (
          await fetch(`${base}/changes?limit=1000`, {
            headers: {
              store: runtime.seed.token,
              username: runtime.seed.username,
              password: runtime.seed.password,
            },
          })
        ).json()) as { changes: Change[] };
        const outline = (list: Change[]) =>
          list.map(({ cursor, type, item_id, reason }) => [cursor, type, item_id, reason]);
        expect(outline(v1.body.changes)).toEqual(outline(b.changes));
        // The special's start repriced Blue Dream: its change carries the effective price now.
        const last = v1.body.changes.filter((change) => change.item_id === 3).at(-1)!;
        expect(last.item).toMatchObject({
          id: 3,
          name: 'Blue Dream',
          prices: [
            {
              price: 12,
              effective_price: 6,
              special: { id: special.id, name: 'Flower half off', ends_at: null },
            },
            { price: 38.5, effective_price: 19.25 },
          ],
        });
      } finally {
        await specials.remove(dispensaryId, special.id);
      }
      expect((await changes('?limit=0')).status).toBe(400);
      const wrong = { ...auth, authorization: basicAuthorization('integrator:nope') };
      expect((await changes('', wrong)).status).toBe(401);
    });
  });

  describe('GET /v1/events', () => {
    type Change = {
      cursor: string;
      type: string;
      item_id: number | null;
      item: Record<string, unknown> | null;
    };
    /** Every stream a test opens, closed after it whatever happened. */
    const opened: EventStreamClient[] = [];
    afterEach(() => {
      for (const stream of opened.splice(0)) stream.close();
    });
    const events = async (query = '', headers: Record<string, string> = auth) => {
      const stream = await openEvents(`${base}/v1/events${query}`, { headers });
      opened.push(stream);
      return stream;
    };
    const codes = (status: number, body: string) => [
      status,
      (JSON.parse(body) as { error: { code: string } }).error.code,
    ];

    it('replays what /v1/changes lists, then each change live, its item priced as /v1/menu prices it when sent', async () => {
      const listed = (await (await fetch(`${base}/v1/changes?limit=1000`, { headers: auth })).json()) as {
        changes: Change[];
      };
      const stream = await events();
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(stream.headers['cache-control']).toBe('no-store');
      expect(stream.headers['x-request-id']).toMatch(UUID);
      expect(stream.headers['x-content-type-options']).toBe('nosniff');
      expect(stream.headers.ratelimit).toMatch(/^"address";r=\d+;t=\d+/);
      const replay = await stream.waitForEvents(listed.changes.length);
      expect(replay.map((event) => [event.id, event.event])).toEqual(
        listed.changes.map((change) => [change.cursor, change.type]),
      );
      expect(replay.map((event) => JSON.parse(event.data!))).toEqual(listed.changes);

      // A special starts after the stream opened; then Blue Dream's stock changes.
      const { specials, menus } = runtime.services;
      const { dispensaryId } = runtime.seed;
      const special = await specials.create(dispensaryId, {
        name: 'Flower half off',
        kind: 'percent_off',
        value: 50,
        applies_to: { product_types: ['Flower'] },
      });
      try {
        await menus.setStock(dispensaryId, [{ item_id: 3, unit: 'gram', amount: 1, stock: 9 }]);
        let live: Change | undefined;
        for (let count = listed.changes.length + 1; !live; count++) {
          const change = JSON.parse((await stream.waitForEvents(count)).at(-1)!.data!) as Change;
          const prices = change.item?.prices as { stock: number }[] | undefined;
          if (change.item_id === 3 && prices?.[0]?.stock === 9) live = change;
        }
        expect(live.item).toMatchObject({
          prices: [
            {
              price: 12,
              effective_price: 6,
              special: { id: special.id, name: 'Flower half off', ends_at: null },
            },
            { price: 38.5, effective_price: 19.25 },
          ],
        });
        // The very item /v1/menu/3 answers now.
        expect(live.item).toEqual(await (await fetch(`${base}/v1/menu/3`, { headers: auth })).json());
        // Resumed with Last-Event-ID: only what came after it.
        const resumed = await events('', { ...auth, 'last-event-id': listed.changes.at(-1)!.cursor });
        const after = await resumed.waitForEvents(1);
        expect(Number(after[0]!.id)).toBeGreaterThan(Number(listed.changes.at(-1)!.cursor));
      } finally {
        await specials.remove(dispensaryId, special.id);
        await menus.setStock(dispensaryId, [{ item_id: 3, unit: 'gram', amount: 1, stock: 10 }]);
      }
    });

    it('refuses as /v1/menu does, takes no limit, answers HEAD at once, and ends when the credential is revoked', async () => {
      const menuCodes = async (headers: Record<string, string>) => {
        const response = await fetch(`${base}/v1/menu`, { headers });
        return codes(response.status, await response.text());
      };
      const wrong = { ...auth, authorization: basicAuthorization(`${runtime.seed.username}:nope`) };
      const refused = await events('', wrong);
      expect(codes(refused.status, refused.body)).toEqual(await menuCodes(wrong));
      const token = await events('', { ...auth, 'dispensary-token': 'not-a-token' });
      expect(codes(token.status, token.body)).toEqual([403, 'invalid_token']);
      const missing = { 'dispensary-token': runtime.seed.token };
      const unsigned = await events('', missing);
      expect(codes(unsigned.status, unsigned.body)).toEqual(await menuCodes(missing));
      const limited = await events('?limit=5');
      expect(codes(limited.status, limited.body)).toEqual([400, 'invalid_request']);
      expect(limited.body).toContain('GET /v1/changes with ?limit=');
      expect((await events('?colour=green')).status).toBe(400);

      const head = await fetch(`${base}/v1/events`, { method: 'HEAD', headers: auth });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');

      const issued = await runtime.services.credentials.issue('revoked-v1-events');
      const stream = await events('', {
        ...auth,
        authorization: basicAuthorization(`${issued.username}:${issued.password}`),
      });
      expect(stream.status).toBe(200);
      await runtime.services.credentials.revoke(issued.username);
      await stream.ended;
      expect(stream.comments).toContain('stream ended (revoked)');
    });
  });

  describe('for random menus and queries', () => {
    const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

    /** The answer worked out plainly from the whole menu: the ids in order. */
    function expected(menu: readonly Input[], query: Query): number[] {
      const list = (value: unknown) => value as string[] | undefined;
      const active = query.active ?? 'true';
      const words = query.q === undefined ? [] : fold(String(query.q)).split(' ');
      const score = (item: Input) => {
        const name = fold(item.name).split(' ');
        let total = 0;
        for (const [index, word] of words.entries()) {
          const last = index === words.length - 1;
          const inName = name.includes(word) ? 8 : last && name.some((w) => w.startsWith(word)) ? 4 : 0;
          const inBrand = fold(item.brand) === word ? 4 : last && fold(item.brand).startsWith(word) ? 2 : 0;
          const inTags = item.tags.includes(word)
            ? 2
            : last && item.tags.some((t) => t.startsWith(word))
              ? 1
              : 0;
          const best = Math.max(inName, inBrand, inTags);
          if (best === 0) return 0;
          total += best;
        }
        return total;
      };
      const kept = menu.filter(
        (item) =>
          (active === 'all' || String(item.active) === active) &&
          (!list(query.product_type) || list(query.product_type)!.includes(item.product_type)) &&
          (!list(query.brand) || list(query.brand)!.includes(item.brand)) &&
          (!list(query.tag) || list(query.tag)!.some((tag) => item.tags.includes(tag))) &&
          (query.price_min === undefined && query.price_max === undefined
            ? true
            : item.prices.some(
                (p) =>
                  (query.price_min === undefined || p.price >= Number(query.price_min)) &&
                  (query.price_max === undefined || p.price <= Number(query.price_max)),
              )) &&
          (query.thc_min === undefined || (item.thc !== null && item.thc >= Number(query.thc_min))) &&
          (query.in_stock === undefined || item.prices.some((p) => p.stock === null || p.stock > 0)) &&
          (query.staff_pick === undefined || item.staff_pick) &&
          (words.length === 0 || score(item) > 0),
      );
      const sort =
        query.sort === undefined ? (words.length > 0 ? 'relevance' : undefined) : String(query.sort);
      const descending = sort?.startsWith('-') ?? false;
      const key = sort?.replace('-', '');
      const value = (item: Input): number | string | null => {
        if (key === 'name') return fold(item.name);
        if (key === 'price') return item.prices.length ? Math.min(...item.prices.map((p) => p.price)) : null;
        if (key === 'price_per_gram')
          return item.prices.length
            ? Math.min(...item.prices.map((p) => Math.round((p.price / p.amount) * 100) / 100))
            : null;
        if (key === 'thc') return item.thc;
        if (key === 'relevance') return -score(item);
        return null;
      };
      return kept
        .map((item) => ({ id: item.id, value: value(item) }))
        .sort((a, b) => {
          if (a.value !== b.value) {
            if (a.value === null) return 1;
            if (b.value === null) return -1;
            return (a.value < b.value ? -1 : 1) * (descending ? -1 : 1);
          }
          return a.id - b.id;
        })
        .map((entry) => entry.id);
    }

    /** Every page of a query, following next_cursor: the ids in order. */
    async function pages(query: Query, limit: number): Promise<{ ids: number[]; total: number }> {
      const ids: number[] = [];
      let cursor: string | null = null;
      let total = 0;
      do {
        const search = asQuery(query);
        search.set('limit', String(limit));
        search.set('fields', 'id');
        if (cursor) search.set('cursor', cursor);
        const response = await get(`?${search}`);
        expect(response.status).toBe(200);
        const body = (await response.json()) as {
          data: { id: number }[];
          next_cursor: string | null;
          total: number;
        };
        ids.push(...body.data.map((item) => item.id));
        ({ next_cursor: cursor, total } = body);
      } while (cursor !== null);
      return { ids, total };
    }

    it('the answer equals a plain filter-and-sort, and paging visits every item once', {
      timeout: 60_000,
    }, async () => {
      const { menus } = runtime.services;
      // Queries that listed more than one page: the property says little if every answer is empty.
      let paged = 0;
      await fc.assert(
        fc.asyncProperty(
          arbitraryMenu,
          fc.array(arbitraryQuery, { minLength: 1, maxLength: 4 }),
          fc.integer({ min: 1, max: 4 }),
          async (menu, queries, limit) => {
            const items = toItems(menu);
            await menus.replace(runtime.seed.dispensaryId, menus.validate(items));
            // And searches whose items score differently, in both directions, on every menu.
            const searches: Query[] = [
              { q: 's', active: 'all' },
              { q: 'g', sort: '-relevance', active: 'all' },
            ];
            for (const query of [...(queries as Query[]), ...searches]) {
              const want = expected(menu as Input[], query);
              const { ids, total } = await pages(query, limit);
              expect(ids).toEqual(want);
              expect(total).toBe(want.length);
              if (want.length > limit) paged += 1;
            }
          },
        ),
        { numRuns: 30 },
      );
      expect(paged).toBeGreaterThan(5);
    });
  });
});

describe('Form v1: the menu versions pagings read', () => {
  it('keeps a version for its time after its last read, and within the item bound the most recently read', () => {
    let now = 0;
    const pinned = new PinnedMenus<string>(1_000, 10, () => now);
    const [a, b, c] = ['a', 'b', 'c'];
    pinned.pin(1, 100, a, 4);
    pinned.pin(1, 101, b, 4);
    now = 900;
    expect(pinned.find(1, 100)).toBe(a);
    expect(pinned.find(2, 100)).toBeUndefined();
    // Over 10 items: the least recently read (101) goes, not the one just read.
    pinned.pin(1, 102, c, 4);
    expect(pinned.find(1, 101)).toBeUndefined();
    expect(pinned.find(1, 100)).toBe(a);
    now = 1_500;
    expect(pinned.find(1, 100)).toBe(a);
    // 102, last read at 900, has had its time; 100, read at 1,500, has not.
    now = 1_950;
    expect(pinned.find(1, 102)).toBeUndefined();
    expect(pinned.find(1, 100)).toBe(a);
  });

  it('touches a version pinned again (a first page read again): its time starts over, its items count once', () => {
    let now = 0;
    const pinned = new PinnedMenus<string>(1_000, 10, () => now);
    const [a, b] = ['a', 'b'];
    pinned.pin(1, 100, a, 4);
    now = 900;
    pinned.pin(1, 100, a, 4);
    pinned.pin(1, 100, a, 4);
    now = 1_500;
    expect(pinned.find(1, 100)).toBe(a);
    // 4 + 4 items, within the bound of 10: both kept.
    pinned.pin(1, 101, b, 4);
    pinned.pin(1, 101, b, 4);
    expect(pinned.find(1, 100)).toBe(a);
    expect(pinned.find(1, 101)).toBe(b);
  });

  it('keeps and finds what a plain list of versions does, pinning the version read last again included', () => {
    /** The versions kept, written plainly: least recently read first, every bound checked on each call. */
    class PlainVersions {
      entries: { key: string; menu: string; items: number; lastRead: number }[] = [];
      constructor(private readonly now: () => number) {}
      private evict(keep?: string) {
        const oldest = this.now() - 1_000;
        for (const entry of [...this.entries]) {
          const items = this.entries.reduce((sum, { items }) => sum + items, 0);
          if (entry.key === keep) continue;
          if (entry.lastRead >= oldest && items <= 10) return;
          this.entries.splice(this.entries.indexOf(entry), 1);
        }
      }
      pin(dispensaryId: number, version: number, menu: string, items: number) {
        const key = `${dispensaryId}:${version}`;
        const found = this.entries.find((entry) => entry.key === key);
        const last = this.entries.at(-1);
        if (found && found === last && found.menu === menu) {
          found.lastRead = this.now();
        } else {
          if (found) this.entries.splice(this.entries.indexOf(found), 1);
          this.entries.push({ key, menu, items, lastRead: this.now() });
        }
        this.evict(key);
      }
      find(dispensaryId: number, version: number): string | undefined {
        this.evict();
        const found = this.entries.find((entry) => entry.key === `${dispensaryId}:${version}`);
        if (!found) return undefined;
        this.entries.splice(this.entries.indexOf(found), 1);
        found.lastRead = this.now();
        this.entries.push(found);
        return found.menu;
      }
    }
    // Few dispensaries, versions and menus, so that the same version is pinned again, by another menu too;
    // a menu's items are its own, as a menu version's are.
    const itemsOf = { a: 3, b: 4, c: 6 };
    const step = fc.record({
      kind: fc.constantFrom('pin', 'pin', 'find', 'wait'),
      dispensaryId: fc.constantFrom(1, 2),
      version: fc.constantFrom(100, 101),
      menu: fc.constantFrom('a', 'b', 'c'),
      ms: fc.integer({ min: 0, max: 1_500 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let now = 0;
        const pinned = new PinnedMenus<string>(1_000, 10, () => now);
        const plain = new PlainVersions(() => now);
        for (const { kind, dispensaryId, version, menu, ms } of steps) {
          if (kind === 'wait') now += ms;
          else if (kind === 'pin') {
            pinned.pin(dispensaryId, version, menu, itemsOf[menu]);
            plain.pin(dispensaryId, version, menu, itemsOf[menu]);
          } else expect(pinned.find(dispensaryId, version)).toBe(plain.find(dispensaryId, version));
        }
        // What is kept at the end, each version looked up (oldest first, as find moves each to the end).
        for (const { key } of [...plain.entries]) {
          const [dispensaryId, version] = key.split(':').map(Number) as [number, number];
          expect(pinned.find(dispensaryId, version)).toBe(plain.find(dispensaryId, version));
        }
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('Form v1: the search index', () => {
  /** Relevance worked out plainly, item by item over every word of every group (what `q` promises). */
  const plain = (groups: readonly (readonly string[])[], words: readonly string[]) => {
    let total = 0;
    for (const [index, word] of words.entries()) {
      const last = index === words.length - 1;
      let best = 0;
      for (const [at, group] of groups.entries()) {
        for (const candidate of group) {
          const found = candidate === word ? 2 : last && candidate.startsWith(word) ? 1 : 0;
          best = Math.max(best, found * WEIGHTS[at]!);
        }
      }
      if (best === 0) return 0;
      total += best;
    }
    return total;
  };

  it('scores every item as a plain scan of its words does, in every group, with the last word a prefix', () => {
    // Few short words, so that words repeat, begin one another and sit in several groups of an item.
    const word = fc.constantFrom('a', 'ab', 'abc', 'b', 'ba', 'bab', 'c');
    const group = fc.array(word, { maxLength: 4 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(group, group, group), { maxLength: 12 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        (items, words) => {
          const index = new SearchIndex(items);
          // Twice: the index's buffers are reused from one search to the next.
          for (let round = 0; round < 2; round++) {
            const found = index.search(words);
            const expected = items.flatMap((groups, row) => {
              const score = plain(groups, words);
              return score > 0 ? [[row, score]] : [];
            });
            expect(found.rows.map((row, at) => [row, found.scores[at]])).toEqual(expected);
          }
        },
      ),
    );
  });

  it('patched after some items changed their words, answers as one built afresh (and the earlier as before)', () => {
    const word = fc.constantFrom('a', 'ab', 'abc', 'b', 'ba', 'bab', 'c', 'cd');
    const groups = fc.tuple(...[0, 1, 2].map(() => fc.array(word, { maxLength: 4 })));
    const search = (index: SearchIndex, words: string[]) => {
      const found = index.search(words);
      return found.rows.map((row, at) => [row, found.scores[at]]);
    };
    fc.assert(
      fc.property(
        fc.array(groups, { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), groups), { minLength: 1, maxLength: 4 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        (before, replacements, words) => {
          const after = [...before];
          for (const [pick, groups] of replacements) after[pick % after.length] = groups;
          const earlier = new SearchIndex(before);
          const expectedBefore = search(earlier, words);
          const changes = [...new Set(replacements.map(([pick]) => pick % after.length))].map((row) => ({
            row,
            before: before[row]!,
            after: after[row]!,
          }));
          expect(search(earlier.patched(changes), words)).toEqual(search(new SearchIndex(after), words));
          expect(search(earlier, words)).toEqual(expectedBefore);
        },
      ),
    );
  });
});
