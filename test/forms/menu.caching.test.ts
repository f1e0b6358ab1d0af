import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminKey, generateMenu, syncTestRuntime } from '../helpers/admin.js';
import { expectInvalidToken, formBHeaders } from '../helpers/http.js';
import type { TestRuntime } from '../helpers/runtime.js';
import { FORM_DRIVERS, type FormDriver } from './driver.js';

/**
 * Menus well over the compression threshold (1 KiB). Form A filters on `active`, so its menu has
 * some inactive items; Form B answers every item.
 */
const MENUS = {
  a: generateMenu(25, 'cache-a').map((item, index) => ({ ...item, active: index % 4 !== 0 })),
  b: generateMenu(25, 'cache'),
};

type Headers = Record<string, string>;

/** The body as JSON text, decoded from whatever Content-Encoding says. */
function decoded(response: LightMyRequestResponse): string {
  const raw = response.rawPayload;
  const encoding = response.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(raw).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(raw).toString('utf8');
  expect(encoding).toBeUndefined();
  return raw.toString('utf8');
}

const ids = (response: LightMyRequestResponse) =>
  (JSON.parse(decoded(response)) as { id: number }[]).map((item) => item.id);

/** Every coding a client may ask for (both forms negotiate alike), and what it gets. */
const ENCODINGS: [string | undefined, string | undefined][] = [
  [undefined, undefined],
  ['identity', undefined],
  ['gzip', 'gzip'],
  ['br', 'br'],
  ['gzip, deflate, br', 'br'],
  ['br;q=0.4, gzip;q=0.9', 'gzip'],
  ['gzip;q=1, br;q=0.5', 'gzip'],
  ['gzip;q=0, br;q=0', undefined],
  ['br;q=0, gzip;q=0', undefined],
  ['br;q=0, *', 'gzip'],
  ['*', 'br'],
  ['*;q=0', undefined],
  ['identity;q=0', undefined],
  ['deflate, zstd, compress', undefined],
  ['zstd', undefined],
  ['x-gzip', 'gzip'],
];

describe.each(FORM_DRIVERS)('$id: /menu snapshots and compression', (form: FormDriver) => {
  const MENU = MENUS[form.id];
  /** The ids each form answers by default: Form A the active items, Form B every item. */
  const ACTIVE = MENU.filter((item) => item.active !== false).map((item) => item.id);
  let runtime: TestRuntime;
  const send = (headers: Headers = {}, parameters: Record<string, unknown> = {}) =>
    form.send(runtime, '/menu', { credentials: form.credentials(runtime.seed), parameters, headers });

  describe(`${form.title('/menu')}: snapshots${form.id === 'b' ? ', ETags' : ''} and compression`, () => {
    beforeAll(async () => {
      runtime = await syncTestRuntime({ menu: MENU });
    });
    afterAll(() => runtime.close());
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it.each(ENCODINGS)(
      'Accept-Encoding %j is answered with Content-Encoding %j, the same JSON',
      async (accept, expected) => {
        const identity = await send({ 'accept-encoding': 'identity' });
        const response = await send(accept === undefined ? {} : { 'accept-encoding': accept });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-encoding']).toBe(expected);
        expect(response.headers.vary).toBe('Accept-Encoding');
        expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
        expect(decoded(response)).toBe(identity.rawPayload.toString('utf8'));
        if (expected) expect(response.rawPayload.length).toBeLessThan(identity.rawPayload.length);
      },
    );

    it('many concurrent reads of a changed menu load and build it once', async () => {
      const { menus, store } = runtime.services;
      // A real change (a sync identical to the stored menu changes nothing, so drops no snapshot).
      const changed = menus.validate(MENU);
      changed[0]!.name = `${changed[0]!.name} (${form.id})`;
      await menus.replace(runtime.seed.dispensaryId, changed);
      const reads = vi.spyOn(store.menus, 'readAt');
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          send({ 'accept-encoding': ['gzip', 'br', 'identity', 'gzip;q=0.5'][index % 4]! }),
        ),
      );
      expect(reads).toHaveBeenCalledTimes(1);
      for (const response of responses) expect(ids(response)).toEqual(ACTIVE);
      if (form.id === 'b') {
        const etags = new Set(responses.map((response) => String(response.headers.etag).slice(1, 33)));
        expect(etags.size).toBe(1);
      }
    });

    if (form.id === 'a') {
      const post = (body: Record<string, unknown> = {}, headers: Headers = {}) => send(headers, body);

      it('has no ETag (a POST), is never stored by caches, and varies by Accept-Encoding', async () => {
        const response = await post();
        expect(response.statusCode).toBe(200);
        expect(response.headers.etag).toBeUndefined();
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.headers.vary).toBe('Accept-Encoding');
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      });

      it('ignores If-None-Match: a POST always gets the answer', async () => {
        const response = await post({}, { 'if-none-match': '*' });
        expect(response.statusCode).toBe(200);
        expect(ids(response)).toEqual(ACTIVE);
      });

      it('keeps one snapshot per active filter: active only, and every item', async () => {
        expect(ids(await post({}, { 'accept-encoding': 'gzip' }))).toEqual(ACTIVE);
        expect(ids(await post({ active: true }, { 'accept-encoding': 'gzip' }))).toEqual(ACTIVE);
        const all = await post({ active: false }, { 'accept-encoding': 'br' });
        expect(ids(all)).toEqual(MENU.map((item) => item.id));
        const flags = (JSON.parse(decoded(all)) as { active: boolean }[]).map((item) => item.active);
        expect(flags).toEqual(MENU.map((item) => item.active));
        expect(runtime.snapshots.has('a:menu:active', runtime.seed.dispensaryId, 'gzip')).toBe(true);
        expect(runtime.snapshots.has('a:menu:all', runtime.seed.dispensaryId, 'br')).toBe(true);
      });

      it('a urlencoded form is answered from the same snapshot', async () => {
        const form = new URLSearchParams({
          username: runtime.seed.username,
          password: runtime.seed.password,
          collective_token: runtime.seed.token,
          active: 'false',
        });
        const response = await runtime.app.inject({
          method: 'POST',
          url: '/menu',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-encoding': 'gzip' },
          payload: form.toString(),
        });
        expect(response.statusCode).toBe(200);
        expect(ids(response)).toEqual(MENU.map((item) => item.id));
      });

      it('every kind of change reaches the next read, in both filters', async () => {
        const { menus, dispensaries } = runtime.services;
        const id = runtime.seed.dispensaryId;
        const read = async (active: boolean) => ids(await post({ active }, { 'accept-encoding': 'gzip' }));
        await read(true);
        await read(false);

        await menus.setActive(id, ACTIVE[0]!, false);
        expect(await read(true)).toEqual(ACTIVE.slice(1));
        expect(await read(false)).toEqual(MENU.map((item) => item.id));

        await menus.replace(id, menus.validate(generateMenu(4, 'next', 100)));
        expect(await read(true)).toEqual([100, 101, 102, 103]);

        const { call } = await adminKey(runtime);
        const before = await post({}, { 'accept-encoding': 'identity' });
        const reads = vi.spyOn(runtime.services.store.menus, 'readAt');
        expect(await post({}, { 'accept-encoding': 'identity' })).toMatchObject({ statusCode: 200 });
        expect(reads).not.toHaveBeenCalled(); // kept: a read that changed nothing rebuilds nothing
        expect(
          (
            await call('PATCH', `/dispensaries/${id}/inventory`, [
              { item_id: 100, unit: 'gram', amount: 1, stock: 77 },
            ])
          ).statusCode,
        ).toBe(200);
        expect(runtime.snapshots.has('a:menu:active', id, 'identity')).toBe(false);
        const after = await post({}, { 'accept-encoding': 'identity' });
        // Form A has no stock field: the bytes stay the same, but they were rebuilt from the new menu.
        expect(reads).toHaveBeenCalledTimes(1);
        expect(reads).toHaveBeenCalledWith(id);
        expect(after.rawPayload.toString()).toBe(before.rawPayload.toString());
        expect(runtime.snapshots.has('a:menu:active', id, 'identity')).toBe(true);

        const rotated = await dispensaries.rotateToken(id, undefined, 0);
        expectInvalidToken(await post());
        expect((await post({ collective_token: rotated.token })).statusCode).toBe(200);

        await dispensaries.remove(id);
        expectInvalidToken(await post({ collective_token: rotated.token }));
      });
    }

    if (form.id === 'b') {
      const get = (extra: Headers = {}, url = '/menu', method: 'GET' | 'HEAD' = 'GET') =>
        runtime.app.inject({ method, url, headers: { ...formBHeaders(runtime.seed), ...extra } });

      describe('conditional requests', () => {
        it('answers 200 with a strong ETag, Vary and a revalidate-first Cache-Control', async () => {
          const response = await get();
          expect(response.statusCode).toBe(200);
          expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
          expect(response.headers.vary).toBe('Accept-Encoding');
          expect(response.headers['cache-control']).toBe('private, no-cache');
          expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
          expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
        });

        it('a matching If-None-Match gets 304 with no body, and the validators', async () => {
          const first = await get();
          const again = await get({ 'if-none-match': String(first.headers.etag) });
          expect(again.statusCode).toBe(304);
          expect(again.rawPayload.length).toBe(0);
          expect(again.headers.etag).toBe(first.headers.etag);
          expect(again.headers.vary).toBe('Accept-Encoding');
          expect(again.headers['cache-control']).toBe('private, no-cache');
          expect(again.headers['content-encoding']).toBeUndefined();
          expect(again.headers['x-request-id']).toMatch(/^\S+$/);
        });

        it('HEAD is answered like GET: 200 with the validators and length but no body; 304 when it matches', async () => {
          const full = await get({ 'accept-encoding': 'gzip' });
          const head = await get({ 'accept-encoding': 'gzip' }, '/menu', 'HEAD');
          expect(head.statusCode).toBe(200);
          expect(head.rawPayload.length).toBe(0);
          expect(head.headers.etag).toBe(full.headers.etag);
          expect(head.headers['content-encoding']).toBe('gzip');
          expect(head.headers['content-length']).toBe(String(full.rawPayload.length));
          const revalidated = await get(
            { 'accept-encoding': 'gzip', 'if-none-match': String(full.headers.etag) },
            '/menu',
            'HEAD',
          );
          expect(revalidated.statusCode).toBe(304);
          expect(revalidated.rawPayload.length).toBe(0);
        });

        it('matches weakly, in a list, with *, and across codings of the same content', async () => {
          const identity = String((await get()).headers.etag);
          const gzip = String((await get({ 'accept-encoding': 'gzip' })).headers.etag);
          expect(gzip).toBe(`${identity.slice(0, -1)}-gzip"`);
          for (const value of [`W/${identity}`, `"other", ${identity}`, '*', gzip]) {
            expect((await get({ 'if-none-match': value })).statusCode, value).toBe(304);
          }
          // A client holding the identity bytes revalidating while asking for gzip: still current.
          expect((await get({ 'if-none-match': identity, 'accept-encoding': 'gzip' })).statusCode).toBe(304);
        });

        it('a different or malformed ETag gets the full answer', async () => {
          const etag = String((await get()).headers.etag);
          // The last character changed (to x, or to y when it is an x already).
          const altered = `${etag.slice(0, -2)}${etag.at(-2) === 'x' ? 'y' : 'x'}"`;
          for (const value of ['"nope"', etag.slice(1, -1), altered, '']) {
            const response = await get({ 'if-none-match': value });
            expect(response.statusCode, value).toBe(200);
            expect(JSON.parse(decoded(response))).toHaveLength(MENU.length);
          }
        });

        it('checks credentials before answering 304: a wrong token with a matching ETag is still 403', async () => {
          const etag = String((await get()).headers.etag);
          expectInvalidToken(await get({ 'if-none-match': etag, store: 'not-a-token-at-all' }));
        });
      });

      it('the snapshot bytes are byte for byte the JSON of the items, as Form B spells them', async () => {
        const items = JSON.parse(decoded(await get({ 'accept-encoding': 'br' }))) as Record<
          string,
          unknown
        >[];
        expect(items.map((item) => item.id)).toEqual(MENU.map((item) => item.id));
        expect(decoded(await get())).toBe(JSON.stringify(items));
      });

      it('a small answer (under 1 KiB) is sent uncompressed, still with Vary', async () => {
        const small = await syncTestRuntime({ menu: generateMenu(1, 's') });
        try {
          const response = await small.app.inject({
            method: 'GET',
            url: '/menu',
            headers: { ...formBHeaders(small.seed), 'accept-encoding': 'gzip, br' },
          });
          expect(response.statusCode).toBe(200);
          expect(response.rawPayload.length).toBeLessThan(1024);
          expect(response.headers['content-encoding']).toBeUndefined();
          expect(response.headers.vary).toBe('Accept-Encoding');
          expect(response.json()).toHaveLength(1);
        } finally {
          await small.close();
        }
      });
    }
  });

  if (form.id === 'b') {
    describe('GET /menu (Form B): every kind of change reaches the next read', () => {
      let runtime: TestRuntime;
      let headers: Headers;
      const get = (extra: Headers = {}, url = '/menu') =>
        runtime.app.inject({ method: 'GET', url, headers: { ...headers, ...extra } });

      /** Reads once (to be sure a snapshot is kept), makes the change, and returns the old ETag. */
      async function cachedEtag(url = '/menu'): Promise<string> {
        const first = await get({ 'accept-encoding': 'gzip' }, url);
        expect(first.statusCode).toBe(200);
        expect((await get({ 'accept-encoding': 'gzip' }, url)).headers.etag).toBe(first.headers.etag);
        return String(first.headers.etag);
      }

      async function expectChanged(etag: string, url = '/menu'): Promise<unknown> {
        const response = await get({ 'accept-encoding': 'gzip', 'if-none-match': etag }, url);
        expect(response.statusCode).toBe(200);
        expect(response.headers.etag).not.toBe(etag);
        return JSON.parse(decoded(response));
      }

      beforeAll(async () => {
        runtime = await syncTestRuntime({ menu: MENU });
        headers = formBHeaders(runtime.seed);
      });
      afterAll(() => runtime.close());

      it('a menu replace', async () => {
        const etag = await cachedEtag();
        const { menus } = runtime.services;
        await menus.replace(runtime.seed.dispensaryId, menus.validate(generateMenu(7, 'replaced')));
        const items = (await expectChanged(etag)) as { name: string }[];
        expect(items.map((item) => item.name)).toEqual(generateMenu(7, 'replaced').map((item) => item.name));
      });

      it('setting an item inactive', async () => {
        const etag = await cachedEtag();
        await runtime.services.menus.setActive(runtime.seed.dispensaryId, 3, false);
        const items = (await expectChanged(etag)) as { id: number }[];
        expect(items.map((item) => item.id)).not.toContain(3);
      });

      it('a stock change through the sync API (PATCH /admin/v1/dispensaries/:id/inventory)', async () => {
        const etag = await cachedEtag();
        const inventoryEtag = await cachedEtag('/inventory');
        const { call } = await adminKey(runtime);
        const patch = await call('PATCH', `/dispensaries/${runtime.seed.dispensaryId}/inventory`, [
          { item_id: 1, unit: 'gram', amount: 1, stock: 4321 },
        ]);
        expect(patch.statusCode, patch.body).toBe(200);
        const items = (await expectChanged(etag)) as { id: number; variants: { stock: number | null }[] }[];
        expect(items.find((item) => item.id === 1)?.variants[0]?.stock).toBe(4321);
        const inventory = (await expectChanged(inventoryEtag, '/inventory')) as {
          item_id: number;
          stock: number;
        }[];
        expect(inventory.find((entry) => entry.item_id === 1)?.stock).toBe(4321);
      });

      it('a store information change (GET /store)', async () => {
        const etag = await cachedEtag('/store');
        await runtime.services.dispensaries.updateStoreInfo(runtime.seed.dispensaryId, { city: 'Oakland' });
        const info = (await expectChanged(etag, '/store')) as { city: string };
        expect(info.city).toBe('Oakland');
      });

      it('a token rotation: the old token is refused at once, the new one gets the current menu', async () => {
        const etag = await cachedEtag();
        const rotated = await runtime.services.dispensaries.rotateToken(
          runtime.seed.dispensaryId,
          undefined,
          0,
        );
        expectInvalidToken(await get({ 'if-none-match': etag }));
        expectInvalidToken(await get());
        headers = { ...headers, store: rotated.token };
        // Same content, same ETag: the new token's client may revalidate the copy it has.
        expect((await get({ 'accept-encoding': 'gzip', 'if-none-match': etag })).statusCode).toBe(304);
      });

      it('a dispensary removal: its token is refused, never answered from a snapshot', async () => {
        await cachedEtag();
        await runtime.services.dispensaries.remove(runtime.seed.dispensaryId);
        expectInvalidToken(await get({ 'accept-encoding': 'gzip' }));
        expect(runtime.snapshots.has('b:menu:both', runtime.seed.dispensaryId, 'gzip')).toBe(false);
      });
    });

    describe('GET /store and /inventory (Form B): validators', () => {
      let runtime: TestRuntime;
      let headers: Headers;

      beforeAll(async () => {
        runtime = await syncTestRuntime({ menu: MENU });
        headers = formBHeaders(runtime.seed);
      });
      afterAll(() => runtime.close());

      it.each(['/store', '/inventory'])(
        '%s has a strong ETag and answers If-None-Match with 304',
        async (url) => {
          const first = await runtime.app.inject({ method: 'GET', url, headers });
          expect(first.statusCode).toBe(200);
          expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
          expect(first.headers['cache-control']).toBe('private, no-cache');
          const again = await runtime.app.inject({
            method: 'GET',
            url,
            headers: { ...headers, 'if-none-match': String(first.headers.etag) },
          });
          expect(again.statusCode).toBe(304);
          expect(again.rawPayload.length).toBe(0);
        },
      );

      it('/inventory with since is computed per request: no ETag, not stored', async () => {
        const response = await runtime.app.inject({
          method: 'GET',
          url: '/inventory?since=2000-01-01T00:00:00Z',
          headers,
        });
        expect(response.statusCode).toBe(200);
        expect(response.headers.etag).toBeUndefined();
        expect(response.headers['cache-control']).toBe('no-store');
        expect((response.json() as unknown[]).length).toBeGreaterThan(0);
      });

      it('/inventory is gzip-compressed like the menu when large enough', async () => {
        const response = await runtime.app.inject({
          method: 'GET',
          url: '/inventory',
          headers: { ...headers, 'accept-encoding': 'gzip' },
        });
        expect(response.headers['content-encoding']).toBe('gzip');
        expect(JSON.parse(gunzipSync(response.rawPayload).toString())).toHaveLength(MENU.length * 2);
      });
    });
  }
});
